package dev.weir.api.state;

import java.util.Map;

/**
 * A map per key.
 *
 * @param <UK> user key type
 * @param <UV> user value type
 */
public interface MapState<UK, UV> {
    /** Returns the value under {@code userKey} for the current key, or null. */
    UV get(UK userKey);

    /** Stores {@code value} under {@code userKey} for the current key. */
    void put(UK userKey, UV value);

    /** Removes {@code userKey} for the current key. */
    void remove(UK userKey);

    /** Returns true if {@code userKey} is present for the current key. */
    boolean contains(UK userKey);

    /** Returns a read-only view of the current key's map (empty if none). */
    Map<UK, UV> entries();

    /** Removes the whole map for the current key. */
    void clear();
}
