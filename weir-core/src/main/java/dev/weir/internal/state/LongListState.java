package dev.weir.internal.state;

import dev.weir.api.state.ListState;

/**
 * A list state of longs that removes an element in place: what a keyed step's stored timers need on
 * every timer that fires or is deleted. Through {@link ListState} alone that is a copy of the key's
 * list, the removal, and another copy in {@code update}; in place it is a scan and a shift (the
 * list is copied only if a snapshot still shares it).
 */
public interface LongListState extends ListState<Long> {
    /**
     * Removes the first element equal to {@code value} from the current key's list; a list left
     * empty is cleared.
     *
     * @param value the element
     * @return true if it was there
     */
    boolean removeFirst(long value);
}
