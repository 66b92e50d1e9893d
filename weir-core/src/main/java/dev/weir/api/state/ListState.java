package dev.weir.api.state;

import java.util.List;

/**
 * A list per key.
 *
 * @param <T> element type
 */
public interface ListState<T> {
    /**
     * Appends {@code value} to the current key's list.
     *
     * @param value the element to append; not null
     * @throws NullPointerException if {@code value} is null
     */
    void add(T value);

    /**
     * Returns a read-only view of the current key's list (empty if none).
     *
     * @return the list in insertion order; a view that sees later changes to this key's list, for
     *     the record or timer that asked for it: once a checkpoint has been taken, the key's next
     *     change may go to a copy the view does not see
     */
    List<T> get();

    /**
     * Replaces the current key's list with {@code values}.
     *
     * @param values the new elements, copied; none may be null
     * @throws NullPointerException if an element is null
     */
    void update(List<T> values);

    /** Removes the list for the current key. */
    void clear();
}
