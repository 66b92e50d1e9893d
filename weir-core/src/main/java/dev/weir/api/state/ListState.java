package dev.weir.api.state;

import java.util.List;

/**
 * A list per key.
 *
 * @param <T> element type
 */
public interface ListState<T> {
    /** Appends {@code value} to the current key's list. */
    void add(T value);

    /** Returns a read-only view of the current key's list (empty if none). */
    List<T> get();

    /** Replaces the current key's list with {@code values}. */
    void update(List<T> values);

    /** Removes the list for the current key. */
    void clear();
}
