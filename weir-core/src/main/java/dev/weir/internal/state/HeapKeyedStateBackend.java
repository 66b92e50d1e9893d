package dev.weir.internal.state;

import dev.weir.api.codec.Codec;
import dev.weir.api.codec.Codecs;
import dev.weir.api.state.KeyGroups;
import dev.weir.api.state.KeyedSection;
import dev.weir.api.state.KeyedStateBackend;
import dev.weir.api.state.ListState;
import dev.weir.api.state.MapState;
import dev.weir.api.state.ValueState;
import dev.weir.internal.io.ByteArrayDataInput;
import dev.weir.internal.io.ByteArrayDataOutput;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Keyed state of one operator subtask, on the heap.
 *
 * <p>Columnar: keys get dense indices in the order they first appear; {@code keys[i]}, {@code
 * groups[i]} (the key group, which checkpoints partition by) and one column per declared state,
 * {@code columns[s][i]}, hold key {@code i}'s data, and an open-addressing table of ints maps a key
 * to its index. Scoping a record to its key costs one probe whatever the number of states; a key
 * costs its own object and its values' objects plus a few array slots (no entry, slot or array
 * object per key), which keeps large state cheap for the garbage collector, and a snapshot copy is
 * a handful of array copies. While every key is a {@code Long} (ids, the common case) the table
 * holds the keys' values next to their indexes, so a lookup reads one slot and no key object. A key
 * left without state is dropped. Single-threaded: only the owning task touches it.
 */
public final class HeapKeyedStateBackend implements KeyedStateBackend {
    /** What kind of handle a declared state is. */
    public enum Kind {
        VALUE,
        MAP,
        LIST
    }

    /** A declared state: its name, kind and codecs. */
    public record Declaration(String name, Kind kind, Codec<?> codec, Codec<?> valueCodec) {}

    /**
     * A restored key and its states' bytes, in the order of {@link RawKeyedState#names}.
     *
     * @param keyGroup the key's group
     * @param key the decoded key
     * @param values each state's encoded value, or null where absent
     */
    public record RawEntry(int keyGroup, Object key, byte[][] values) {}

    /**
     * A restored value whose state is not declared yet: kind and bytes, held in {@link #pending} by
     * its key (not the key's index, which a drop may change).
     */
    private record PendingValue(Kind kind, byte[] bytes) {}

    private static final Object[][] NO_COLUMNS = new Object[0][];

    /** The step whose state this is, named in errors. */
    private final String owner;

    private final int maxParallelism;
    private final List<Declaration> declarations = new ArrayList<>();
    private final Map<String, Map<Object, PendingValue>> pending = new HashMap<>();

    /** Per restored state not declared yet: the ids of the codecs that wrote it (or null). */
    private final Map<String, String[]> pendingCodecIds = new HashMap<>();

    /**
     * Per declared state, the last value class (map: key and value class) its codec was seen to
     * write: a value of a new class is encoded once on the spot, so a codec that cannot write it
     * fails the job at that record instead of failing every checkpoint later.
     */
    private Class<?>[] checkedClasses = new Class<?>[0];

    private Class<?>[] checkedValueClasses = new Class<?>[0];
    private final ByteArrayDataOutput probe = new ByteArrayDataOutput(256);

    /** Classes of the keys held; a restore's define which key types the state was written for. */
    private final java.util.Set<Class<?>> keyClasses = new java.util.HashSet<>();

    private Class<?> lastKeyClass;

    /** True once a restore added keys: a key of a class none of them had is then refused. */
    private boolean restoredKeys;

    /** True while a restore inserts keys. */
    private boolean restoring;

    private Object[] keys;
    private int[] groups;
    private Object[][] columns = NO_COLUMNS;
    private int size;

    /**
     * True while every key held is a {@code Long}: the table is then {@link #longTable}, else
     * {@link #table}.
     */
    private boolean longKeys = true;

    /** Open addressing, linear probing: index + 1 of the key, 0 = empty. Keys other than longs. */
    private int[] table;

    /**
     * The table of {@code Long} keys: slot {@code s} holds the key's value at {@code 2s} and its
     * index + 1 at {@code 2s + 1} (0 = empty), so a probe compares values in the slot's own cache
     * line instead of reading {@code keys[index]} and then the key object, two dependent misses
     * once the keys outgrow the caches (keyed sum, K=100,000: 40 % of the CPU was the lookup).
     */
    private long[] longTable;

    /**
     * The table slot of each key index, as last placed or moved: {@link #drop} finds the slots of
     * the dropped key and of the last key (which moves into its place) here instead of probing from
     * their homes, which reads the key object and then the table, two dependent misses for a key
     * not used lately (Nexmark q7 drops every auction's key when its window fires: 6 % of the
     * workers' time was that probe). A hint is checked against the table before it is trusted.
     */
    private int[] slotHints = new int[0];

    /** From this many table slots (1 MB of long table) {@link #prefetch} loads ahead. */
    private static final int PREFETCH_MIN_SLOTS = 1 << 16;

    /** What the last {@link #prefetch} loaded, summed: kept so that its loads are not dead code. */
    private long prefetched;

    /**
     * The state read or written last: the column {@link #prefetch} loads values from. The
     * operator's timer lists are declared first and are mostly empty, so the first column would
     * load lines of nulls while the function's own state, read on every record, waited for its
     * misses one by one. An {@code int} store per access: no collector barrier (design 009, rule
     * 1).
     */
    private int hotColumn;

    /**
     * The token of the maps and lists this backend may change in place ({@link StateMap#owner},
     * {@link StateList#owner}). A snapshot shares every map and list with the live state and takes
     * a new token; a container is copied before its first change after that, so the snapshot's
     * stays as it was and the copy costs only the keys that change (what Flink's copy-on-write
     * state map does). The same on a restore from a local copy, which must stay intact for the
     * next.
     */
    private Object token = new Object();

    /** Slots in the table in use (a power of two). */
    private int slots;

    /** 32 - log2(slots). */
    private int shift;

    private int current = -1;
    private Object currentKey;

    /**
     * Walks of {@link #forEachKey} in progress: keys left without state are not dropped during one
     * (dropping moves the last key into the hole, which the walk would then skip), but after it.
     */
    private int walking;

    /**
     * Index of the current key if a clear left it without state, else -1: dropped when another key
     * becomes current, not at once, since the same record often writes it again (a session that
     * grows is removed and put back).
     */
    private int emptied = -1;

    /** Keyed state of the step {@code owner}, partitioned into {@code maxParallelism} groups. */
    public HeapKeyedStateBackend(String owner, int maxParallelism) {
        this(owner, maxParallelism, null);
    }

    /**
     * Like {@link #HeapKeyedStateBackend(String, int)}, restoring locally into {@code spare} (a
     * failed attempt's arrays) if there is such a restore.
     */
    HeapKeyedStateBackend(String owner, int maxParallelism, Spare spare) {
        this.owner = owner;
        this.maxParallelism = maxParallelism;
        this.spare = spare;
        clear();
    }

    /** A failed attempt's arrays, for a local restore; dropped once the restore is over. */
    private Spare spare;

    /** This closed backend's arrays, for the next attempt. */
    private Spare spareForNext;

    /** For tests: a backend of an unnamed step. */
    public HeapKeyedStateBackend(int maxParallelism) {
        this("?", maxParallelism);
    }

    /** Number of keys with state. */
    public int size() {
        dropEmptied();
        return size;
    }

    @Override
    public int keyCount() {
        dropEmptied();
        return size;
    }

    @Override
    public KeyedSnapshot snapshot() {
        return copy();
    }

    @Override
    public void restore(KeyedSection section, int firstKeyGroup, int lastKeyGroup) {
        spare = null; // restored from the files: the previous attempt's arrays are not used
        restore(RawKeyedState.of(section), firstKeyGroup, lastKeyGroup);
    }

    @Override
    public boolean restoreLocal(KeyedSnapshot snapshot) {
        if (!(snapshot instanceof KeyedCopy copy)) {
            return false;
        }
        Spare reuse = spare;
        spare = null;
        return restoreFrom(copy, reuse);
    }

    @Override
    public void restoreFinished() {
        spare = null;
    }

    @Override
    public void close(boolean restartLikely) {
        if (restartLikely) {
            spareForNext = release();
        } else {
            clear();
        }
    }

    /** The arrays this closed backend kept for the next attempt of its subtask, once. */
    Spare takeSpareForNext() {
        Spare taken = spareForNext;
        spareForNext = null;
        return taken;
    }

    /**
     * The key's home position in the table. Not the key-group hash's low bits: a subtask holds only
     * keys whose {@code mix(hash) % maxParallelism} falls in its range, so those bits are skewed
     * and linear probing would pile up; Fibonacci hashing takes the top bits of the product, which
     * depend on every bit of the hash.
     */
    private int home(Object key) {
        return (KeyGroups.mix(key.hashCode()) * 0x9E3779B9) >>> shift;
    }

    /** The home slot of the long key {@code value}: Fibonacci hashing of all 64 bits. */
    private int home(long value) {
        return (int) ((value * 0x9E3779B97F4A7C15L) >>> (shift + 32));
    }

    private int find(Object key) {
        if (longKeys) {
            return key instanceof Long number ? findLong(number) : -1;
        }
        int mask = slots - 1;
        for (int at = home(key); ; at = (at + 1) & mask) {
            int entry = table[at];
            if (entry == 0) {
                return -1;
            }
            Object candidate = keys[entry - 1];
            if (candidate == key || candidate.equals(key)) {
                return entry - 1;
            }
        }
    }

    private int findLong(long value) {
        long[] slotted = longTable;
        int mask = slots - 1;
        for (int at = home(value); ; at = (at + 1) & mask) {
            long entry = slotted[2 * at + 1];
            if (entry == 0) {
                return -1;
            }
            if (slotted[2 * at] == value) {
                return (int) entry - 1;
            }
        }
    }

    /** Adds {@code key} (absent) and returns its index. */
    private int insert(Object key, int group) {
        Class<?> type = key.getClass();
        if (type != lastKeyClass) {
            noteKeyClass(type);
        }
        if (longKeys && type != Long.class) {
            longKeys = false; // from now on the table of any keys, built from those held
            longTable = null;
            rebuildTable(slots);
        }
        if (size == keys.length) {
            growTo(keys.length * 2);
        }
        int index = size++;
        keys[index] = key;
        groups[index] = group;
        if (size * 2 > slots) {
            rebuildTable(slots * 2);
        } else {
            place(index);
        }
        return index;
    }

    private void noteKeyClass(Class<?> type) {
        lastKeyClass = type;
        if (keyClasses.contains(type)) {
            return;
        }
        if (restoredKeys && !restoring) {
            throw new dev.weir.api.UnrecoverableException(
                    "step '"
                            + owner
                            + "' restored state whose keys are of type "
                            + names(keyClasses)
                            + ", but a key of type "
                            + type.getName()
                            + " arrived: either the key selector changed, and the restored state"
                            + " would be orphaned, or it returns keys of several classes and this"
                            + " checkpoint was taken before the new one first appeared (the two"
                            + " cannot be told apart). Keep the key type (wrap keys of several"
                            + " classes in one: a record, or a string), or start this step's state"
                            + " afresh under another step name with"
                            + " Pipeline.allowNonRestoredState(true)");
        }
        keyClasses.add(type);
    }

    private static String names(java.util.Set<Class<?>> classes) {
        List<String> names = new ArrayList<>();
        for (Class<?> type : classes) {
            names.add(type.getName());
        }
        Collections.sort(names);
        return String.join(" or ", names);
    }

    private void place(int index) {
        int mask = slots - 1;
        if (longKeys) {
            long value = (Long) keys[index];
            int at = home(value);
            while (longTable[2 * at + 1] != 0) {
                at = (at + 1) & mask;
            }
            longTable[2 * at] = value;
            longTable[2 * at + 1] = index + 1;
            hintSlot(index, at);
            return;
        }
        int at = home(keys[index]);
        while (table[at] != 0) {
            at = (at + 1) & mask;
        }
        table[at] = index + 1;
        hintSlot(index, at);
    }

    /** Notes that key {@code index} is in table slot {@code slot} (see {@link #slotHints}). */
    private void hintSlot(int index, int slot) {
        int[] hints = slotHints;
        if (index >= hints.length) {
            hints = Arrays.copyOf(hints, Math.max(keys.length, index + 1));
            slotHints = hints;
        }
        hints[index] = slot;
    }

    /**
     * Makes the table {@code capacity} slots, of the kind the keys need, and places every key held.
     * A table of that size already there (a restore into adopted arrays) is cleared, not replaced.
     */
    private void rebuildTable(int capacity) {
        if (longKeys) {
            if (longTable != null && longTable.length == 2 * capacity) {
                Arrays.fill(longTable, 0);
            } else {
                longTable = new long[2 * capacity];
            }
            table = null;
        } else {
            if (table != null && table.length == capacity) {
                Arrays.fill(table, 0);
            } else {
                table = new int[capacity];
            }
            longTable = null;
        }
        slots = capacity;
        shift = Integer.numberOfLeadingZeros(capacity) + 1;
        for (int i = 0; i < size; i++) {
            place(i);
        }
    }

    /** Gives the key arrays and every column room for {@code capacity} keys. */
    private void growTo(int capacity) {
        keys = Arrays.copyOf(keys, capacity);
        groups = Arrays.copyOf(groups, capacity);
        for (int s = 0; s < columns.length; s++) {
            columns[s] = Arrays.copyOf(columns[s], capacity);
        }
    }

    private static int powerOfTwoAtLeast(int n) {
        return n <= 1 ? 1 : Integer.highestOneBit(n - 1) << 1;
    }

    /** Makes room for at least {@code more} further keys at once (restores know their count). */
    private void reserve(int more) {
        int needed = size + more;
        if (needed > keys.length) {
            growTo(powerOfTwoAtLeast(needed));
        }
        if (needed * 2 > slots) {
            rebuildTable(powerOfTwoAtLeast(needed * 2));
        }
    }

    /**
     * Calls {@code visitor} for every key held now, in the order keys first appeared, with the
     * state scoped to it; keys the visitor adds are not visited.
     */
    @Override
    public void forEachKey(KeyVisitor visitor) throws Exception {
        dropEmptied();
        int count = size;
        walking++;
        try {
            for (int i = 0; i < count; i++) {
                current = i;
                visitor.visit(keys[i]);
            }
        } finally {
            if (--walking == 0) {
                dropKeysWithoutState();
            }
        }
    }

    /** The key the state is scoped to now, or null. */
    @Override
    public Object currentKey() {
        int index = current;
        return index >= 0 ? keys[index] : currentKey;
    }

    /**
     * Loads the table slots (and the values of the state used last) of long keys about to be made
     * current, once the table is too large to stay in the caches: independent loads, so that their
     * misses overlap, where each lookup in turn would wait for its own.
     */
    @Override
    public void prefetch(Object[] keys, int from, int to, int step) {
        if (!longKeys || slots < PREFETCH_MIN_SLOTS || step < 1 || from < 0) {
            return; // small enough to stay cached, or not a run this backend can walk
        }
        long[] slotted = longTable;
        int hot = hotColumn;
        Object[] values = hot < columns.length ? columns[hot] : null;
        long loaded = 0;
        for (int i = from; i < to; i += step) {
            if (keys[i] instanceof Long number) {
                long value = number;
                int at = home(value);
                long entry = slotted[2 * at + 1];
                if (entry != 0 && slotted[2 * at] == value && values != null) {
                    Object held = values[(int) entry - 1];
                    loaded += held == null ? 0 : held.getClass() == Long.class ? 1 : 2;
                } else {
                    loaded++;
                }
            }
        }
        prefetched = loaded; // used, so the loads are not optimised away
    }

    /** Scopes every state handle to {@code key} until the next call. */
    @Override
    public void setCurrentKey(Object key) {
        int index = current;
        if (index >= 0 && keys[index] == key) {
            return; // the same key object as the last record's (runs of one key are common)
        }
        if (emptied >= 0) {
            dropEmptied();
        }
        index = find(key);
        current = index;
        if (index < 0) {
            // Only a new key is held here: a reference store into this long-lived object on
            // every record costs a card-marking fence under G1 (docs/design/009-hot-path.md).
            currentKey = key;
        }
    }

    private int currentForWrite() {
        int index = current;
        if (index < 0) {
            if (currentKey == null) {
                throw new IllegalStateException("keyed state used outside of processing a record");
            }
            index = insert(currentKey, KeyGroups.keyGroupOf(currentKey, maxParallelism));
            current = index;
        }
        return index;
    }

    private Object read(int state) {
        hotColumn = state;
        int index = current;
        return index < 0 ? null : columns[state][index];
    }

    /**
     * The current key's map or list of {@code state}, which this backend may change in place: a map
     * or list a snapshot shares (or one decoded from a checkpoint, which has no owner) is first
     * replaced by a copy of it. Null if the key holds none. Every map and list state holds is a
     * {@link StateMap} or a {@link StateList}.
     */
    private Object owned(int state) {
        hotColumn = state;
        int index = current;
        if (index < 0) {
            return null;
        }
        Object held = columns[state][index];
        if (held instanceof StateMap<?, ?> map) {
            if (map.owner == token) {
                return map;
            }
            held = new StateMap<>(map, token);
        } else if (held instanceof StateList<?> list) {
            if (list.owner == token) {
                return list;
            }
            held = new StateList<>(list, token);
        } else {
            return null; // the key holds none
        }
        columns[state][index] = held;
        return held;
    }

    private void write(int state, Object value) {
        hotColumn = state;
        int index = currentForWrite(); // first: it may grow the columns
        columns[state][index] = value;
    }

    private void clearValue(int state) {
        int index = current;
        if (index >= 0) {
            columns[state][index] = null;
            if (holdsNothing(index)) {
                emptied = index;
            }
        }
    }

    /** Drops the key a clear left without state, unless it holds state again by now. */
    private void dropEmptied() {
        int index = emptied;
        if (index < 0) {
            return;
        }
        emptied = -1;
        // The marked key is the current one: only a new current key or a walk (which both come
        // here first) moves the current index.
        if (index < size && holdsNothing(index) && mayDrop()) {
            currentKey = keys[index]; // still the current key: a write adds it again
            current = -1;
            drop(index);
        }
    }

    /** True if key {@code index} has no value in any declared state. */
    private boolean holdsNothing(int index) {
        for (Object[] column : columns) {
            if (column[index] != null) {
                return false;
            }
        }
        if (!pending.isEmpty()) { // restored values of states not declared yet are state too
            Object key = keys[index];
            for (Map<Object, PendingValue> values : pending.values()) {
                if (values.containsKey(key)) {
                    return false;
                }
            }
        }
        return true;
    }

    /** True unless indexes must stay put: during a walk of the keys or a restore. */
    private boolean mayDrop() {
        return walking == 0 && !restoring;
    }

    /** Drops every key that holds no state (after a walk, whose visitor may have cleared some). */
    private void dropKeysWithoutState() {
        if (!mayDrop()) {
            return;
        }
        // From the end: a drop moves the last key into the hole, and every key after i has been
        // looked at already and holds state.
        int before = size;
        for (int i = size - 1; i >= 0; i--) {
            if (holdsNothing(i)) {
                drop(i);
            }
        }
        emptied = -1;
        if (size != before) {
            current = -1; // the walk's last key may have moved or gone
            currentKey = null;
        }
    }

    /**
     * Forgets key {@code index}, which holds no state, so that keys that come and go (auctions,
     * sessions, windows per key) do not pile up in memory, in every lookup's path and in every
     * checkpoint. The last key moves into its place; its table entry is removed by shifting the
     * entries of its probe run back (linear probing without tombstones).
     */
    private void drop(int index) {
        int mask = slots - 1;
        int hole = slotOf(index);
        for (int at = (hole + 1) & mask; occupied(at); at = (at + 1) & mask) {
            int home = longKeys ? home(longTable[2 * at]) : home(keys[table[at] - 1]);
            // The entry may fill the hole unless its home lies after the hole, up to its slot.
            if (((at - home) & mask) >= ((at - hole) & mask)) {
                moveSlot(at, hole);
                hole = at;
            }
        }
        emptySlot(hole);
        int last = size - 1;
        if (index != last) {
            int moved = slotOf(last);
            if (longKeys) {
                longTable[2 * moved + 1] = index + 1;
            } else {
                table[moved] = index + 1;
            }
            hintSlot(index, moved);
            keys[index] = keys[last];
            groups[index] = groups[last];
            for (Object[] column : columns) {
                column[index] = column[last];
            }
        }
        keys[last] = null;
        for (Object[] column : columns) {
            column[last] = null;
        }
        size = last;
    }

    private boolean occupied(int slot) {
        return longKeys ? longTable[2 * slot + 1] != 0 : table[slot] != 0;
    }

    private void moveSlot(int from, int to) {
        int entry;
        if (longKeys) {
            longTable[2 * to] = longTable[2 * from];
            entry = (int) (longTable[2 * to + 1] = longTable[2 * from + 1]);
        } else {
            entry = table[to] = table[from];
        }
        hintSlot(entry - 1, to);
    }

    private void emptySlot(int slot) {
        if (longKeys) {
            longTable[2 * slot] = 0;
            longTable[2 * slot + 1] = 0;
        } else {
            table[slot] = 0;
        }
    }

    /** The table slot that holds key {@code index}. */
    private int slotOf(int index) {
        int[] hints = slotHints;
        if (index < hints.length) {
            int hinted = hints[index];
            if (hinted < slots
                    && (longKeys ? longTable[2 * hinted + 1] : table[hinted]) == index + 1) {
                return hinted; // a slot holds one key: the hint is right, whatever wrote it
            }
        }
        int mask = slots - 1;
        if (longKeys) {
            int at = home((long) (Long) keys[index]);
            while (longTable[2 * at + 1] != index + 1) {
                at = (at + 1) & mask;
            }
            return at;
        }
        int at = home(keys[index]);
        while (table[at] != index + 1) {
            at = (at + 1) & mask;
        }
        return at;
    }

    private int declare(String name, Kind kind, Codec<?> codec, Codec<?> valueCodec) {
        for (Declaration d : declarations) {
            if (d.name().equals(name)) {
                throw new IllegalArgumentException(
                        "state '" + name + "' is declared twice; give each state its own name");
            }
        }
        Declaration declaration = new Declaration(name, kind, codec, valueCodec);
        String[] ids = pendingCodecIds.remove(name);
        if (ids != null) {
            checkCodecs(declaration, ids[0], ids[1]);
        }
        declarations.add(declaration);
        int state = declarations.size() - 1;
        columns = Arrays.copyOf(columns, state + 1);
        columns[state] = new Object[keys.length];
        checkedClasses = Arrays.copyOf(checkedClasses, state + 1);
        checkedValueClasses = Arrays.copyOf(checkedValueClasses, state + 1);
        Map<Object, PendingValue> restored = pending.remove(name);
        if (restored != null) {
            ByteArrayDataInput in = new ByteArrayDataInput();
            for (Map.Entry<Object, PendingValue> entry : restored.entrySet()) {
                PendingValue value = entry.getValue();
                checkKind(declaration, value.kind());
                in.reset(value.bytes(), 0, value.bytes().length);
                Object key = entry.getKey();
                int index = find(key);
                if (index < 0) {
                    index = insert(key, KeyGroups.keyGroupOf(key, maxParallelism));
                }
                columns[state][index] = StateValues.decode(declaration, in);
            }
            if (current < 0 && currentKey != null) {
                current = find(currentKey); // the current key may be one added just now
            }
        }
        return state;
    }

    /**
     * Adds the entries of {@code raw} whose key group is within {@code firstGroup..lastGroup}.
     * Values of states already declared are decoded straight into place; the others wait, encoded,
     * for their declaration.
     */
    public void restore(RawKeyedState raw, int firstGroup, int lastGroup) {
        int width = raw.names().size();
        int[] column = new int[width];
        for (int s = 0; s < width; s++) {
            column[s] = columnOf(raw.names().get(s));
            String codecId = raw.codecIds() == null ? null : raw.codecIds().get(s);
            String valueCodecId = raw.codecIds() == null ? null : raw.valueCodecIds().get(s);
            if (column[s] >= 0) {
                checkKind(declarations.get(column[s]), raw.kinds().get(s));
                checkCodecs(declarations.get(column[s]), codecId, valueCodecId);
            } else if (codecId != null) {
                pendingCodecIds.put(raw.names().get(s), new String[] {codecId, valueCodecId});
            }
        }
        reserve(raw.entryCount(firstGroup, lastGroup));
        ByteArrayDataInput in = new ByteArrayDataInput();
        restoring = true;
        int before = size;
        try {
            restoreEntries(raw, firstGroup, lastGroup, column, in);
        } finally {
            restoring = false;
        }
        restoredKeys |= size > before;
    }

    private void restoreEntries(
            RawKeyedState raw, int firstGroup, int lastGroup, int[] column, ByteArrayDataInput in) {
        int width = column.length;
        raw.forEach(
                firstGroup,
                lastGroup,
                (group, key, buffer, offsets, lengths) -> {
                    if (find(key) >= 0) {
                        throw new IllegalStateException(
                                "key " + key + " appears twice in the restored state");
                    }
                    int index = insert(key, group);
                    for (int s = 0; s < width; s++) {
                        if (lengths[s] < 0) {
                            continue;
                        }
                        if (column[s] >= 0) {
                            in.reset(buffer, offsets[s], lengths[s]);
                            columns[column[s]][index] =
                                    StateValues.decode(declarations.get(column[s]), in);
                        } else {
                            byte[] bytes =
                                    Arrays.copyOfRange(buffer, offsets[s], offsets[s] + lengths[s]);
                            pending.computeIfAbsent(raw.names().get(s), n -> new LinkedHashMap<>())
                                    .put(key, new PendingValue(raw.kinds().get(s), bytes));
                        }
                    }
                });
    }

    /** The column of the state declared as {@code name}, or -1. */
    private int columnOf(String name) {
        for (int d = 0; d < declarations.size(); d++) {
            if (declarations.get(d).name().equals(name)) {
                return d;
            }
        }
        return -1;
    }

    /**
     * Refuses a restored state whose codecs (ids as recorded in the checkpoint, null if not
     * recorded) the declared codecs cannot read: decoding one format with another would restore
     * garbage or fail far from the cause.
     */
    private void checkCodecs(Declaration declaration, String codecId, String valueCodecId) {
        if (codecId == null || codecId.isEmpty()) {
            return; // written before codec ids were recorded
        }
        String mismatch = null;
        if (!declaration.codec().canRead(codecId)) {
            mismatch = "codec '" + codecId + "'";
        } else if (declaration.valueCodec() != null
                && valueCodecId != null
                && !valueCodecId.isEmpty()
                && !declaration.valueCodec().canRead(valueCodecId)) {
            mismatch = "value codec '" + valueCodecId + "'";
        }
        if (mismatch != null) {
            String declared =
                    declaration.valueCodec() == null
                            ? "codec '" + declaration.codec().id() + "'"
                            : "codecs '"
                                    + declaration.codec().id()
                                    + "' and '"
                                    + declaration.valueCodec().id()
                                    + "'";
            throw new dev.weir.api.UnrecoverableException(
                    "state '"
                            + declaration.name()
                            + "' of step '"
                            + owner
                            + "' was written with "
                            + mismatch
                            + " but is now declared with "
                            + declared
                            + ", which cannot read it. Declare it with the codec it had, give the"
                            + " new state another name (dropping the old one with"
                            + " Pipeline.allowNonRestoredState(true)), or write a codec that reads"
                            + " both formats (see Codec's javadoc on evolving a state type)");
        }
    }

    /**
     * Encodes {@code value} once when state {@code state} first gets a value of its class (for a
     * map, {@code valueClass == true} means the map's value), so a codec that cannot write it fails
     * here, at the record, naming the step, the state, the type and the codec.
     */
    private void checkWritable(int state, Object value, boolean mapValue) {
        Declaration declaration = declarations.get(state);
        @SuppressWarnings("unchecked")
        Codec<Object> codec =
                (Codec<Object>) (mapValue ? declaration.valueCodec() : declaration.codec());
        try {
            probe.reset();
            codec.encode(value, probe);
        } catch (Exception | StackOverflowError e) {
            throw new dev.weir.api.UnrecoverableException(
                    "state '"
                            + declaration.name()
                            + "' of step '"
                            + owner
                            + "' got a "
                            + (declaration.kind() == Kind.MAP
                                    ? (mapValue ? "map value" : "map key")
                                    : "value")
                            + " of type "
                            + value.getClass().getName()
                            + " that its codec '"
                            + codec.id()
                            + "' cannot write ("
                            + e
                            + "), so no checkpoint could hold it; declare the state with a codec"
                            + " for that type (Codecs.record("
                            + value.getClass().getSimpleName()
                            + ".class) for a record of supported types, or your own Codec)",
                    e);
        }
        if (mapValue) {
            checkedValueClasses[state] = value.getClass();
        } else {
            checkedClasses[state] = value.getClass();
        }
    }

    private static void checkKind(Declaration declaration, Kind restored) {
        if (restored != declaration.kind()) {
            throw new IllegalStateException(
                    "state '"
                            + declaration.name()
                            + "' is a "
                            + restored
                            + " state in the checkpoint but is now declared as "
                            + declaration.kind()
                            + "; keep the kind, or give the new state another name");
        }
    }

    /**
     * Rebuilds the state from {@code copy}, taken by a subtask with the same key groups, as the
     * checkpoint it was taken for holds it: keys and values are shared (values are immutable), map
     * and list containers are copied; values of states not declared yet wait, encoded, for their
     * declaration. Returns false, changing nothing, unless the backend is empty (the caller then
     * restores from the checkpoint files); a state declared with another kind is an error, as in
     * {@link #restore}.
     */
    public boolean restoreFrom(KeyedCopy copy) {
        return restoreFrom(copy, null);
    }

    /**
     * Like {@link #restoreFrom(KeyedCopy)}, restoring into {@code spare} (the arrays a failed
     * attempt of this subtask released) where they are large enough, instead of new arrays.
     */
    public boolean restoreFrom(KeyedCopy copy, Spare spare) {
        if (size != 0 || !pending.isEmpty() || copy.undeclared.length > 0) {
            return false; // a copy holding encoded values of undeclared states: from the files
        }
        if (spare != null && spare.keys.length >= copy.keys.length) {
            adopt(spare, copy.keys.length);
        }
        int[] column = new int[copy.declarations.size()];
        for (int s = 0; s < column.length; s++) {
            Declaration old = copy.declarations.get(s);
            column[s] = columnOf(old.name());
            String valueCodecId = old.valueCodec() == null ? "" : old.valueCodec().id();
            if (column[s] >= 0) {
                checkKind(declarations.get(column[s]), old.kind());
                checkCodecs(declarations.get(column[s]), old.codec().id(), valueCodecId);
            } else {
                pendingCodecIds.put(old.name(), new String[] {old.codec().id(), valueCodecId});
            }
        }
        int n = copy.keys.length;
        reserve(n);
        System.arraycopy(copy.keys, 0, keys, 0, n);
        System.arraycopy(copy.groups, 0, groups, 0, n);
        for (int s = 0; s < column.length; s++) {
            if (column[s] < 0) {
                holdEncoded(copy.declarations.get(s), copy.columns[s], n);
                continue;
            }
            System.arraycopy(copy.columns[s], 0, columns[column[s]], 0, n);
        }
        // The copy's maps and lists carry tokens of the time it was taken, which its backend left
        // behind then; a new token here too, so that none of them is ever taken for this one's.
        token = new Object();
        size = n;
        longKeys = allLongs(keys, n);
        rebuildTable(slots);
        current = -1;
        currentKey = null;
        emptied = -1;
        keyClasses.addAll(copy.keyClasses);
        restoredKeys = n > 0;
        return true;
    }

    private static boolean allLongs(Object[] keys, int n) {
        for (int i = 0; i < n; i++) {
            if (keys[i].getClass() != Long.class) {
                return false;
            }
        }
        return true;
    }

    /**
     * Keeps the values of a state not declared (yet) encoded until its declaration, as a restore
     * from files does: the function may declare it while processing.
     */
    private void holdEncoded(Declaration declaration, Object[] values, int n) {
        Map<Object, PendingValue> held = new LinkedHashMap<>();
        ByteArrayDataOutput out = new ByteArrayDataOutput(64);
        for (int i = 0; i < n; i++) {
            if (values[i] != null) {
                out.reset();
                StateValues.encode(declaration, values[i], out);
                held.put(keys[i], new PendingValue(declaration.kind(), out.toByteArray()));
            }
        }
        if (!held.isEmpty()) {
            pending.put(declaration.name(), held);
        }
    }

    /**
     * A closed attempt's arrays, all of one capacity, and its table: reused by the next attempt's
     * restore so that a restart does not allocate (and the collector copy) as much again.
     */
    public static final class Spare {
        private final Object[] keys;
        private final int[] groups;
        private final Object[][] columns;
        private final int[] table;
        private final long[] longTable;

        private Spare(
                Object[] keys, int[] groups, Object[][] columns, int[] table, long[] longTable) {
            this.keys = keys;
            this.groups = groups;
            this.columns = columns;
            this.table = table;
            this.longTable = longTable;
        }
    }

    /** Hands this backend's arrays over and leaves it empty, as {@link #clear} does. */
    public Spare release() {
        Spare spare = new Spare(keys, groups, columns, table, longTable);
        columns = new Object[columns.length][];
        table = null;
        longTable = null;
        clear();
        return spare;
    }

    /**
     * Takes {@code spare}'s arrays (capacity at least {@code needed}) as this empty backend's,
     * cleared of the old attempt's references.
     */
    private void adopt(Spare spare, int needed) {
        int capacity = spare.keys.length;
        Arrays.fill(spare.keys, needed, capacity, null); // the restore copies over the rest
        keys = spare.keys;
        groups = spare.groups;
        for (int s = 0; s < columns.length; s++) {
            Object[] reused = s < spare.columns.length ? spare.columns[s] : null;
            if (reused != null && reused.length == capacity) {
                Arrays.fill(reused, null);
                columns[s] = reused;
            } else {
                columns[s] = new Object[capacity];
            }
        }
        // The restore's rebuildTable clears a table of the size it needs and sets the shift.
        if (spare.table != null && spare.table.length >= 2 * needed) {
            table = spare.table;
            slots = table.length;
        }
        if (spare.longTable != null && spare.longTable.length >= 4 * needed) {
            longTable = spare.longTable;
            slots = longTable.length / 2;
        }
    }

    /** Drops every key's state (the task is closed; its state is no longer needed). */
    public void clear() {
        keys = new Object[16];
        groups = new int[16];
        for (int s = 0; s < columns.length; s++) {
            columns[s] = new Object[16];
        }
        size = 0;
        longKeys = true;
        rebuildTable(32);
        pending.clear();
        pendingCodecIds.clear();
        keyClasses.clear();
        lastKeyClass = null;
        restoredKeys = false;
        current = -1;
        currentKey = null;
        emptied = -1;
    }

    /**
     * Copies every key's state so a checkpoint can serialise it on another thread while the task
     * goes on: value states are shared (they must be treated as immutable), map and list states are
     * copied. Costs a few array copies on the task's thread, plus one pass per map or list state.
     */
    public KeyedCopy copy() {
        dropEmptied();
        int n = size;
        Object[][] copied = new Object[declarations.size()][];
        for (int s = 0; s < copied.length; s++) {
            copied[s] = Arrays.copyOf(columns[s], n);
        }
        token = new Object(); // every map and list is now shared with the copy
        return new KeyedCopy(
                List.copyOf(declarations),
                Arrays.copyOf(keys, n),
                Arrays.copyOf(groups, n),
                copied,
                maxParallelism,
                java.util.Set.copyOf(keyClasses),
                undeclared(n));
    }

    /**
     * The restored values of states not declared yet, per key index, still encoded: a checkpoint
     * taken before the function declares them must keep them (a state declared on first use).
     */
    private Undeclared[] undeclared(int n) {
        if (pending.isEmpty()) {
            return NO_UNDECLARED;
        }
        List<Undeclared> states = new ArrayList<>();
        for (Map.Entry<String, Map<Object, PendingValue>> state : pending.entrySet()) {
            byte[][] values = new byte[n][];
            Kind kind = null;
            for (int i = 0; i < n; i++) {
                PendingValue value = state.getValue().get(keys[i]);
                if (value != null) {
                    values[i] = value.bytes();
                    kind = value.kind();
                }
            }
            if (kind != null) {
                String[] ids = pendingCodecIds.get(state.getKey());
                states.add(
                        new Undeclared(
                                state.getKey(),
                                kind,
                                ids == null || ids[0] == null ? "" : ids[0],
                                ids == null || ids[1] == null ? "" : ids[1],
                                values));
            }
        }
        return states.toArray(NO_UNDECLARED);
    }

    private static final Undeclared[] NO_UNDECLARED = new Undeclared[0];

    /** A state not declared yet in a copy: its name, kind, codec ids and encoded values. */
    private record Undeclared(
            String name, Kind kind, String codecId, String valueCodecId, byte[][] values) {}

    /** A point-in-time copy of keyed state, serialisable on any thread. */
    public static final class KeyedCopy implements KeyedSnapshot {
        private final List<Declaration> declarations;
        private final Object[] keys;
        private final int[] groups;
        private final Object[][] columns;
        private final int keyGroups;
        private final java.util.Set<Class<?>> keyClasses;
        private final Undeclared[] undeclared;

        KeyedCopy(
                List<Declaration> declarations,
                Object[] keys,
                int[] groups,
                Object[][] columns,
                int keyGroups,
                java.util.Set<Class<?>> keyClasses,
                Undeclared[] undeclared) {
            this.undeclared = undeclared;
            this.declarations = declarations;
            this.keys = keys;
            this.groups = groups;
            this.columns = columns;
            this.keyGroups = keyGroups;
            this.keyClasses = keyClasses;
        }

        /**
         * Writes the state section of a state file, entries sorted by key group. Stops with {@link
         * java.io.InterruptedIOException} when the writing thread is interrupted (a failed job
         * abandons its in-flight checkpoints; the restart should not wait for them).
         */
        @Override
        public void writeTo(java.io.DataOutput target) throws IOException {
            if (target instanceof ByteArrayDataOutput out) {
                writeTo(out);
            } else {
                ByteArrayDataOutput out = new ByteArrayDataOutput(64 * 1024);
                writeTo(out);
                target.write(out.buffer(), 0, out.size());
            }
        }

        @Override
        public int keyCount() {
            return keys.length;
        }

        private void writeTo(ByteArrayDataOutput out) throws IOException {
            int width = declarations.size();
            out.writeInt(width + undeclared.length);
            for (Declaration d : declarations) {
                out.writeUTF(d.name());
                out.writeByte(d.kind().ordinal());
                out.writeUTF(d.codec().id());
                out.writeUTF(d.valueCodec() == null ? "" : d.valueCodec().id());
            }
            for (Undeclared u : undeclared) {
                out.writeUTF(u.name());
                out.writeByte(u.kind().ordinal());
                out.writeUTF(u.codecId());
                out.writeUTF(u.valueCodecId());
            }
            out.writeInt(keys.length);
            int lengthAt = out.size();
            out.writeInt(0); // the entries' length in bytes, patched below: readers skip them
            // Two passes. The first encodes each key and its values in the order of the key
            // indices, which is close to the order the collector laid their objects out in; the
            // second writes the encoded entries in key-group order, copying from one compact
            // buffer. Walking the objects in key-group order instead made a dereference per key
            // and value a cache miss: most of a large state's checkpoint time.
            int n = keys.length;
            Codec<Object> keyCodec = Codecs.auto();
            ByteArrayDataOutput scratch = new ByteArrayDataOutput(64);
            // Sized for Long keys and Long values; it grows for anything larger. The price of
            // the two passes: this buffer, as large as the entries, beside the output while the
            // snapshot is written (the encoded section is in memory about twice at the peak).
            ByteArrayDataOutput encoded =
                    new ByteArrayDataOutput(
                            (int) Math.min(1 << 26, Math.max(64, (long) n * (13 + 12 * width))));
            int[] ends = new int[n];
            // A ValueState of Codecs.LONG is written here directly (its length, then the long, as
            // its codec writes it): no scratch buffer and copy for the common running count or sum.
            boolean[] longValue = new boolean[width];
            for (int s = 0; s < width; s++) {
                Declaration d = declarations.get(s);
                longValue[s] = d.kind() == Kind.VALUE && d.codec() == Codecs.LONG;
            }
            for (int i = 0; i < n; i++) {
                if ((i & 0xFFFF) == 0xFFFF && Thread.currentThread().isInterrupted()) {
                    throw new java.io.InterruptedIOException("snapshot abandoned");
                }
                keyCodec.encode(keys[i], encoded);
                for (int s = 0; s < width; s++) {
                    Object value = columns[s][i];
                    if (value == null) {
                        encoded.writeInt(-1);
                    } else if (longValue[s] && value instanceof Long number) {
                        encoded.writeInt(Long.BYTES);
                        encoded.writeLong(number);
                    } else {
                        scratch.reset();
                        StateValues.encode(declarations.get(s), value, scratch);
                        encoded.writeInt(scratch.size());
                        encoded.write(scratch.buffer(), 0, scratch.size());
                    }
                }
                for (Undeclared u : undeclared) {
                    byte[] value = u.values()[i];
                    if (value == null) {
                        encoded.writeInt(-1);
                    } else {
                        encoded.writeInt(value.length);
                        encoded.write(value, 0, value.length);
                    }
                }
                ends[i] = encoded.size();
            }
            if (Thread.currentThread().isInterrupted()) {
                throw new java.io.InterruptedIOException("snapshot abandoned");
            }
            byte[] bytes = encoded.buffer();
            for (int i : orderByKeyGroup()) {
                int from = i == 0 ? 0 : ends[i - 1];
                out.writeInt(groups[i]);
                out.write(bytes, from, ends[i] - from);
            }
            int length = out.size() - lengthAt - 4;
            byte[] buffer = out.buffer();
            buffer[lengthAt] = (byte) (length >>> 24);
            buffer[lengthAt + 1] = (byte) (length >>> 16);
            buffer[lengthAt + 2] = (byte) (length >>> 8);
            buffer[lengthAt + 3] = (byte) length;
        }

        /** Indices of the keys sorted by key group: a counting sort, O(keys + key groups). */
        private int[] orderByKeyGroup() {
            int[] start = new int[keyGroups + 1];
            for (int group : groups) {
                start[group + 1]++;
            }
            for (int g = 0; g < keyGroups; g++) {
                start[g + 1] += start[g];
            }
            int[] order = new int[keys.length];
            for (int i = 0; i < keys.length; i++) {
                order[start[groups[i]]++] = i;
            }
            return order;
        }
    }

    @Override
    public <T> ValueState<T> valueState(String name, Codec<T> codec) {
        int index = declare(name, Kind.VALUE, codec, null);
        return new ValueState<>() {
            @Override
            @SuppressWarnings("unchecked")
            public T value() {
                return (T) read(index);
            }

            @Override
            public void update(T value) {
                if (value == null) {
                    throw new NullPointerException(
                            "ValueState '" + name + "'.update(null); use clear() to remove");
                }
                if (value.getClass() != checkedClasses[index]) {
                    checkWritable(index, value, false);
                }
                write(index, value);
            }

            @Override
            public void clear() {
                clearValue(index);
            }
        };
    }

    @Override
    public <K, V> MapState<K, V> mapState(String name, Codec<K> keyCodec, Codec<V> valueCodec) {
        int index = declare(name, Kind.MAP, keyCodec, valueCodec);
        return new MapState<>() {
            @SuppressWarnings("unchecked")
            private Map<K, V> map() {
                return (Map<K, V>) read(index);
            }

            @SuppressWarnings("unchecked")
            private Map<K, V> mapForWrite() {
                int key = currentForWrite();
                Map<K, V> map = (Map<K, V>) owned(index);
                if (map == null) {
                    map = new StateMap<>(token);
                    columns[index][key] = map;
                }
                return map;
            }

            @Override
            public V get(K userKey) {
                Map<K, V> map = map();
                return map == null ? null : map.get(userKey);
            }

            @Override
            public void put(K userKey, V value) {
                if (userKey == null || value == null) {
                    throw new NullPointerException(
                            "MapState '" + name + "'.put with a null key or value");
                }
                if (userKey.getClass() != checkedClasses[index]) {
                    checkWritable(index, userKey, false);
                }
                if (value.getClass() != checkedValueClasses[index]) {
                    checkWritable(index, value, true);
                }
                mapForWrite().put(userKey, value);
            }

            @Override
            @SuppressWarnings("unchecked")
            public void remove(K userKey) {
                Map<K, V> map = map();
                if (map == null || !map.containsKey(userKey)) {
                    return; // nothing to remove: a shared map stays shared
                }
                map = (Map<K, V>) owned(index);
                map.remove(userKey);
                if (map.isEmpty()) {
                    clearValue(index); // an empty map is no state: the key may go
                }
            }

            @Override
            public boolean contains(K userKey) {
                Map<K, V> map = map();
                return map != null && map.containsKey(userKey);
            }

            @Override
            @SuppressWarnings("unchecked")
            public Map<K, V> entries() {
                // Owned: the view must see this key's later changes, which go to the owned map.
                StateMap<K, V> map = (StateMap<K, V>) owned(index);
                return map == null ? Map.of() : map.readOnly();
            }

            @Override
            public void clear() {
                clearValue(index);
            }
        };
    }

    @Override
    public <T> ListState<T> listState(String name, Codec<T> codec) {
        int index = declare(name, Kind.LIST, codec, null);
        return new HeapListState<>(name, index);
    }

    /**
     * A list state of longs that removes in place (the timers of a keyed step): the codec must be
     * {@code Codecs.LONG}'s.
     *
     * @param name the state's name
     * @param codec the codec of its elements
     * @return the state
     */
    public LongListState longListState(String name, Codec<Long> codec) {
        return new HeapLongListState(name, declare(name, Kind.LIST, codec, null));
    }

    private final class HeapLongListState extends HeapListState<Long> implements LongListState {
        HeapLongListState(String name, int index) {
            super(name, index);
        }

        @Override
        public boolean removeFirst(long value) {
            List<?> list = (List<?>) owned(index);
            if (list == null) {
                return false;
            }
            int n = list.size();
            for (int i = 0; i < n; i++) {
                if ((Long) list.get(i) == value) {
                    if (n == 1) {
                        clearValue(index); // an empty list is no state: the key may go
                    } else {
                        list.remove(i);
                    }
                    return true;
                }
            }
            return false;
        }
    }

    private class HeapListState<T> implements ListState<T> {
        final String name;
        final int index;

        HeapListState(String name, int index) {
            this.name = name;
            this.index = index;
        }

        @Override
        @SuppressWarnings("unchecked")
        public void add(T value) {
            if (value == null) {
                throw new NullPointerException("ListState '" + name + "'.add(null)");
            }
            if (value.getClass() != checkedClasses[index]) {
                checkWritable(index, value, false);
            }
            int key = currentForWrite();
            List<T> list = (List<T>) owned(index);
            if (list == null) {
                list = new StateList<>(token);
                columns[index][key] = list;
            }
            list.add(value);
        }

        @Override
        @SuppressWarnings("unchecked")
        public List<T> get() {
            // Owned: the view must see this key's later adds, which go to the owned list.
            List<T> list = (List<T>) owned(index);
            return list == null ? List.of() : Collections.unmodifiableList(list);
        }

        @Override
        public void update(List<T> values) {
            for (T value : values) {
                if (value == null) {
                    throw new NullPointerException(
                            "ListState '" + name + "'.update with a null element");
                }
                if (value.getClass() != checkedClasses[index]) {
                    checkWritable(index, value, false);
                }
            }
            if (values.isEmpty()) {
                clearValue(index); // an empty list is no state: the key may go
            } else {
                write(index, new StateList<>(values, token));
            }
        }

        @Override
        public void clear() {
            clearValue(index);
        }
    }
}
