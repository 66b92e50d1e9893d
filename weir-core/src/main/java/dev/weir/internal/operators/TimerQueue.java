package dev.weir.internal.operators;

import java.util.Arrays;

/**
 * The pending timers of one time domain of a keyed-process operator, in memory: for each distinct
 * time the set of keys with a timer then, and the distinct times in a min-heap.
 *
 * <p>Timers of many keys share few times (every key's window ends at the same instants), so a
 * registration finds its time's set in a map of primitive times and adds the key there: no object
 * per timer, and a timer that exists already is found by its key in one small set. Deleting removes
 * the key from its time's set at once (nothing is left to fire into nothing). A time's set keeps
 * its keys in registration order, which is the order they fire in.
 *
 * <p>Not thread-safe: used by the operator's task thread only.
 */
final class TimerQueue {
    /** Sets of times that fired, kept for reuse while small. */
    private static final int SPARES = 32;

    private static final int SPARE_CAPACITY = 64;

    /** Min-heap of the distinct times that have a set in {@link #slotSets}. */
    private long[] heap = new long[16];

    private int heapSize;

    /** Open addressing (linear probing) from a time to its set; null = empty slot. */
    private long[] slotTimes = new long[16];

    private KeySet[] slotSets = new KeySet[16];

    /** 64 - log2(slots). */
    private int slotShift = 60;

    private final KeySet[] spares = new KeySet[SPARES];
    private int spareCount;

    /** Live timers, all times together. */
    private int size;

    /**
     * Adds the timer of {@code key} at {@code time}.
     *
     * @return false if it existed
     */
    boolean add(long time, Object key) {
        KeySet keys = setAt(time);
        if (keys == null) {
            keys = newSet(time);
            putSet(keys);
            heapPush(time);
        }
        if (!keys.add(key)) {
            return false;
        }
        size++;
        return true;
    }

    /**
     * Deletes the timer of {@code key} at {@code time}.
     *
     * @return false if there was none
     */
    boolean delete(long time, Object key) {
        KeySet keys = setAt(time);
        if (keys == null || !keys.remove(key)) {
            return false;
        }
        size--;
        // An emptied set stays until its time comes up: removing it from the heap costs more.
        return true;
    }

    /** True if {@code key} has a timer at {@code time}. */
    boolean contains(long time, Object key) {
        KeySet keys = setAt(time);
        return keys != null && keys.indexOf(key) >= 0;
    }

    /** Number of live timers. */
    int size() {
        return size;
    }

    /** The earliest time with a set (whose timers may all be deleted), or MAX_VALUE. */
    long earliest() {
        return heapSize == 0 ? Long.MAX_VALUE : heap[0];
    }

    /**
     * Takes out the earliest time's timers if that time is at or before {@code upTo}: the caller
     * fires the non-null keys of the returned set in index order up to its {@link KeySet#end}, then
     * hands it back with {@link #recycle}. A timer registered meanwhile at the same time goes into
     * a new set, taken out by a later call. Null if no time is due.
     */
    KeySet pollDue(long upTo) {
        while (heapSize > 0 && heap[0] <= upTo) {
            long time = heapPop();
            KeySet keys = removeSet(time);
            if (keys.live > 0) {
                size -= keys.live;
                return keys;
            }
            recycle(keys);
        }
        return null;
    }

    /** Returns a set {@link #pollDue} handed out, whose timers have fired. */
    void recycle(KeySet keys) {
        if (spareCount < SPARES && keys.keys.length <= SPARE_CAPACITY) {
            keys.reset();
            spares[spareCount++] = keys;
        }
    }

    private KeySet newSet(long time) {
        KeySet keys = spareCount > 0 ? spares[--spareCount] : new KeySet();
        spares[spareCount] = null;
        keys.time = time;
        return keys;
    }

    // ---- time -> set map

    private int slot(long time) {
        return (int) ((time * 0x9E3779B97F4A7C15L) >>> slotShift);
    }

    private KeySet setAt(long time) {
        int mask = slotSets.length - 1;
        for (int at = slot(time); ; at = (at + 1) & mask) {
            KeySet keys = slotSets[at];
            if (keys == null || slotTimes[at] == time) {
                return keys;
            }
        }
    }

    private void putSet(KeySet keys) {
        if ((heapSize + 1) * 2 > slotSets.length) {
            long[] oldTimes = slotTimes;
            KeySet[] oldSets = slotSets;
            slotTimes = new long[oldTimes.length * 2];
            slotSets = new KeySet[oldSets.length * 2];
            slotShift--;
            for (int i = 0; i < oldSets.length; i++) {
                if (oldSets[i] != null) {
                    place(oldSets[i]);
                }
            }
        }
        place(keys);
    }

    private void place(KeySet keys) {
        int mask = slotSets.length - 1;
        int at = slot(keys.time);
        while (slotSets[at] != null) {
            at = (at + 1) & mask;
        }
        slotTimes[at] = keys.time;
        slotSets[at] = keys;
    }

    /** Removes the set of {@code time} (present) from the map, shifting its probe chain back. */
    private KeySet removeSet(long time) {
        int mask = slotSets.length - 1;
        int at = slot(time);
        while (slotTimes[at] != time || slotSets[at] == null) {
            at = (at + 1) & mask;
        }
        KeySet removed = slotSets[at];
        int hole = at;
        for (int next = (hole + 1) & mask; slotSets[next] != null; next = (next + 1) & mask) {
            int home = slot(slotTimes[next]);
            // Move the entry into the hole unless its home lies cyclically in (hole, next].
            boolean stays =
                    hole <= next ? hole < home && home <= next : hole < home || home <= next;
            if (!stays) {
                slotTimes[hole] = slotTimes[next];
                slotSets[hole] = slotSets[next];
                hole = next;
            }
        }
        slotSets[hole] = null;
        return removed;
    }

    // ---- heap of distinct times

    private void heapPush(long time) {
        if (heapSize == heap.length) {
            heap = Arrays.copyOf(heap, heap.length * 2);
        }
        int at = heapSize++;
        while (at > 0) {
            int parent = (at - 1) >>> 1;
            if (heap[parent] <= time) {
                break;
            }
            heap[at] = heap[parent];
            at = parent;
        }
        heap[at] = time;
    }

    private long heapPop() {
        long top = heap[0];
        long last = heap[--heapSize];
        int at = 0;
        int half = heapSize >>> 1;
        while (at < half) {
            int child = 2 * at + 1;
            if (child + 1 < heapSize && heap[child + 1] < heap[child]) {
                child++;
            }
            if (last <= heap[child]) {
                break;
            }
            heap[at] = heap[child];
            at = child;
        }
        if (heapSize > 0) {
            heap[at] = last;
        }
        return top;
    }

    /**
     * The keys with a timer at one time, in registration order; a deleted one leaves null in its
     * place. Small sets are scanned; larger ones get a hash table of indexes.
     */
    static final class KeySet {
        private static final int SCAN_LIMIT = 8;

        long time;
        Object[] keys = new Object[4];

        /** Slots used in {@link #keys} (live and deleted). */
        int end;

        /** Live keys. */
        int live;

        /** Open addressing: index + 1 into {@link #keys}, 0 = empty; null while small. */
        private int[] table;

        private int tableShift;

        private int home(Object key) {
            int h = key.hashCode();
            return ((h ^ (h >>> 16)) * 0x9E3779B9) >>> tableShift;
        }

        int indexOf(Object key) {
            Object[] keys = this.keys;
            if (table == null) {
                for (int i = 0; i < end; i++) {
                    Object k = keys[i];
                    if (k == key || (k != null && k.equals(key))) {
                        return i;
                    }
                }
                return -1;
            }
            int mask = table.length - 1;
            for (int at = home(key); ; at = (at + 1) & mask) {
                int entry = table[at];
                if (entry == 0) {
                    return -1;
                }
                Object k = keys[entry - 1];
                if (k == key || (k != null && k.equals(key))) {
                    return entry - 1;
                }
            }
        }

        boolean add(Object key) {
            if (indexOf(key) >= 0) {
                return false;
            }
            if (end == keys.length) {
                if (live * 2 <= end) {
                    compact();
                } else {
                    keys = Arrays.copyOf(keys, keys.length * 2);
                }
            }
            keys[end++] = key;
            live++;
            if (table != null) {
                if (end * 2 > table.length) {
                    rebuildTable(table.length * 2);
                } else {
                    place(end - 1);
                }
            } else if (end > SCAN_LIMIT) {
                rebuildTable(32);
            }
            return true;
        }

        boolean remove(Object key) {
            int index = indexOf(key);
            if (index < 0) {
                return false;
            }
            // The table keeps pointing at the null slot: a tombstone, gone at the next rebuild.
            keys[index] = null;
            live--;
            return true;
        }

        /** Drops deleted slots, keeping the order of the live keys. */
        private void compact() {
            int to = 0;
            for (int i = 0; i < end; i++) {
                if (keys[i] != null) {
                    keys[to++] = keys[i];
                }
            }
            Arrays.fill(keys, to, end, null);
            end = to;
            if (table != null) {
                rebuildTable(table.length);
            }
        }

        private void rebuildTable(int capacity) {
            if (table != null && table.length == capacity) {
                Arrays.fill(table, 0);
            } else {
                table = new int[capacity];
            }
            tableShift = Integer.numberOfLeadingZeros(capacity) + 1;
            for (int i = 0; i < end; i++) {
                if (keys[i] != null) {
                    place(i);
                }
            }
        }

        private void place(int index) {
            int mask = table.length - 1;
            int at = home(keys[index]);
            while (table[at] != 0) {
                at = (at + 1) & mask;
            }
            table[at] = index + 1;
        }

        void reset() {
            Arrays.fill(keys, 0, end, null);
            end = 0;
            live = 0;
            table = null;
        }
    }
}
