package dev.weir.api.state;

import java.util.Map;

/**
 * A map per key.
 *
 * @param <UK> user key type
 * @param <UV> user value type
 */
public interface MapState<UK, UV> {
    /**
     * Returns the value under {@code userKey} for the current key, or null.
     *
     * @param userKey the map key to look up
     * @return its value, or null if absent
     */
    UV get(UK userKey);

    /**
     * Stores {@code value} under {@code userKey} for the current key.
     *
     * @param userKey the map key; not null
     * @param value the value; not null, and treated as immutable from now on
     * @throws NullPointerException if {@code userKey} or {@code value} is null
     */
    void put(UK userKey, UV value);

    /**
     * Removes {@code userKey} for the current key.
     *
     * @param userKey the map key to remove; nothing happens if it is absent
     */
    void remove(UK userKey);

    /**
     * Returns true if {@code userKey} is present for the current key.
     *
     * @param userKey the map key to look for
     * @return whether the current key's map holds it
     */
    boolean contains(UK userKey);

    /**
     * Returns a read-only view of the current key's map (empty if none).
     *
     * @return the map, in no particular order; a view that sees later changes to this key's map
     *     until the map is emptied or cleared (an empty map is no state: the backend may drop it,
     *     and the key with it when it holds no other state), after which ask again. A view is for
     *     the record or timer that asked for it: once a checkpoint has been taken, the key's next
     *     change may go to a copy the view does not see (a checkpoint keeps the map as it was
     *     without copying every key's)
     */
    Map<UK, UV> entries();

    /** Removes the whole map for the current key. */
    void clear();
}
