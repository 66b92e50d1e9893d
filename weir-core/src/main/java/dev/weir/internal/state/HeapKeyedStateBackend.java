package dev.weir.internal.state;

import dev.weir.api.codec.Codec;
import dev.weir.api.codec.Codecs;
import dev.weir.api.state.KeyedStateStore;
import dev.weir.api.state.ListState;
import dev.weir.api.state.MapState;
import dev.weir.api.state.ValueState;
import dev.weir.internal.checkpoint.ByteArrayDataOutput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Keyed state of one operator subtask, on the heap.
 *
 * <p>All declared states of a key live in one {@link Slot}, so scoping a record to its key costs
 * one hash lookup whatever the number of states. Each slot remembers its key group, which is what
 * checkpoints partition by. Single-threaded: only the owning task touches it.
 */
public final class HeapKeyedStateBackend implements KeyedStateStore {
    /** One key's state values, indexed by the order in which states were declared. */
    public static final class Slot {
        final int keyGroup;
        Object[] values;

        Slot(int keyGroup, int stateCount) {
            this.keyGroup = keyGroup;
            this.values = new Object[stateCount];
        }

        public int keyGroup() {
            return keyGroup;
        }

        Object get(int index) {
            return index < values.length ? values[index] : null;
        }

        void set(int index, Object value) {
            if (index >= values.length) {
                values = Arrays.copyOf(values, index + 1);
            }
            values[index] = value;
        }
    }

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
     * Keyed state read from a checkpoint, values still encoded.
     *
     * @param names the declared state names when the snapshot was taken
     * @param kinds their kinds
     * @param entries one per key, sorted by key group
     */
    public record RawKeyedState(List<String> names, List<Kind> kinds, List<RawEntry> entries) {}

    private record PendingValue(Slot slot, Kind kind, byte[] bytes) {}

    private final int maxParallelism;
    private final Map<Object, Slot> slots = new HashMap<>();
    private final List<Declaration> declarations = new ArrayList<>();
    private final Map<String, List<PendingValue>> pending = new HashMap<>();
    private Slot current;
    private Object currentKey;

    public HeapKeyedStateBackend(int maxParallelism) {
        this.maxParallelism = maxParallelism;
    }

    /** Scopes every state handle to {@code key} until the next call. */
    public void setCurrentKey(Object key) {
        currentKey = key;
        current = slots.get(key);
    }

    private Slot currentSlotForWrite() {
        Slot slot = current;
        if (slot == null) {
            if (currentKey == null) {
                throw new IllegalStateException("keyed state used outside of processing a record");
            }
            slot = new Slot(KeyGroups.keyGroupOf(currentKey, maxParallelism), declarations.size());
            slots.put(currentKey, slot);
            current = slot;
        }
        return slot;
    }

    private Object read(int index) {
        Slot slot = current;
        return slot == null ? null : slot.get(index);
    }

    private void clearValue(int index) {
        Slot slot = current;
        if (slot != null) {
            slot.set(index, null);
        }
    }

    private int declare(String name, Kind kind, Codec<?> codec, Codec<?> valueCodec) {
        for (Declaration d : declarations) {
            if (d.name().equals(name)) {
                throw new IllegalArgumentException(
                        "state '" + name + "' is declared twice; give each state its own name");
            }
        }
        Declaration declaration = new Declaration(name, kind, codec, valueCodec);
        declarations.add(declaration);
        int index = declarations.size() - 1;
        List<PendingValue> restored = pending.remove(name);
        if (restored != null) {
            for (PendingValue value : restored) {
                if (value.kind() != kind) {
                    throw new IllegalStateException(
                            "state '"
                                    + name
                                    + "' is a "
                                    + value.kind()
                                    + " state in the checkpoint but is now declared as "
                                    + kind
                                    + "; keep the kind, or give the new state another name");
                }
                value.slot().set(index, StateValues.decode(declaration, value.bytes()));
            }
        }
        return index;
    }

    /**
     * Adds the entries of {@code raw} whose key group is within {@code firstGroup..lastGroup};
     * their values are decoded when the operator declares each state. Call before the operator
     * opens.
     */
    public void restore(RawKeyedState raw, int firstGroup, int lastGroup) {
        for (RawEntry entry : raw.entries()) {
            if (entry.keyGroup() < firstGroup || entry.keyGroup() > lastGroup) {
                continue;
            }
            Slot slot = new Slot(entry.keyGroup(), 0);
            if (slots.put(entry.key(), slot) != null) {
                throw new IllegalStateException(
                        "key " + entry.key() + " appears twice in the restored state");
            }
            for (int s = 0; s < raw.names().size(); s++) {
                byte[] bytes = entry.values()[s];
                if (bytes != null) {
                    pending.computeIfAbsent(raw.names().get(s), n -> new ArrayList<>())
                            .add(new PendingValue(slot, raw.kinds().get(s), bytes));
                }
            }
        }
    }

    /**
     * Copies every key's state so a checkpoint can serialise it on another thread while the task
     * goes on: value states are shared (they must be treated as immutable), map and list states are
     * copied. Costs one pass over the keys on the task's thread.
     */
    public KeyedCopy copy() {
        int n = slots.size();
        int width = declarations.size();
        Object[] keys = new Object[n];
        int[] groups = new int[n];
        Object[] values = new Object[n * width];
        int i = 0;
        for (Map.Entry<Object, Slot> entry : slots.entrySet()) {
            Slot slot = entry.getValue();
            keys[i] = entry.getKey();
            groups[i] = slot.keyGroup;
            Object[] own = slot.values;
            for (int s = 0; s < width && s < own.length; s++) {
                Object value = own[s];
                if (value instanceof Map<?, ?> map) {
                    value = new HashMap<>(map);
                } else if (value instanceof List<?> list) {
                    value = new ArrayList<>(list);
                }
                values[i * width + s] = value;
            }
            i++;
        }
        return new KeyedCopy(List.copyOf(declarations), keys, groups, values, maxParallelism);
    }

    /** A point-in-time copy of keyed state, serialisable on any thread. */
    public static final class KeyedCopy {
        private final List<Declaration> declarations;
        private final Object[] keys;
        private final int[] groups;
        private final Object[] values;
        private final int keyGroups;

        KeyedCopy(
                List<Declaration> declarations,
                Object[] keys,
                int[] groups,
                Object[] values,
                int keyGroups) {
            this.declarations = declarations;
            this.keys = keys;
            this.groups = groups;
            this.values = values;
            this.keyGroups = keyGroups;
        }

        /** Writes the state section of a state file, entries sorted by key group. */
        public void writeTo(DataOutput out) throws IOException {
            int width = declarations.size();
            out.writeInt(width);
            for (Declaration d : declarations) {
                out.writeUTF(d.name());
                out.writeByte(d.kind().ordinal());
            }
            out.writeInt(keys.length);
            Codec<Object> keyCodec = Codecs.auto();
            ByteArrayDataOutput scratch = new ByteArrayDataOutput(64);
            for (int i : orderByKeyGroup()) {
                out.writeInt(groups[i]);
                keyCodec.encode(keys[i], out);
                for (int s = 0; s < width; s++) {
                    Object value = values[i * width + s];
                    if (value == null) {
                        out.writeInt(-1);
                    } else {
                        scratch.reset();
                        StateValues.encode(declarations.get(s), value, scratch);
                        out.writeInt(scratch.size());
                        out.write(scratch.buffer(), 0, scratch.size());
                    }
                }
            }
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
                currentSlotForWrite().set(index, value);
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
                Slot slot = currentSlotForWrite();
                Map<K, V> map = (Map<K, V>) slot.get(index);
                if (map == null) {
                    map = new HashMap<>();
                    slot.set(index, map);
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
                mapForWrite().put(userKey, value);
            }

            @Override
            public void remove(K userKey) {
                Map<K, V> map = map();
                if (map != null) {
                    map.remove(userKey);
                }
            }

            @Override
            public boolean contains(K userKey) {
                Map<K, V> map = map();
                return map != null && map.containsKey(userKey);
            }

            @Override
            public Map<K, V> entries() {
                Map<K, V> map = map();
                return map == null ? Map.of() : Collections.unmodifiableMap(map);
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
        return new ListState<>() {
            @SuppressWarnings("unchecked")
            private List<T> list() {
                return (List<T>) read(index);
            }

            @Override
            @SuppressWarnings("unchecked")
            public void add(T value) {
                Slot slot = currentSlotForWrite();
                List<T> list = (List<T>) slot.get(index);
                if (list == null) {
                    list = new ArrayList<>();
                    slot.set(index, list);
                }
                list.add(value);
            }

            @Override
            public List<T> get() {
                List<T> list = list();
                return list == null ? List.of() : Collections.unmodifiableList(list);
            }

            @Override
            public void update(List<T> values) {
                currentSlotForWrite().set(index, new ArrayList<>(values));
            }

            @Override
            public void clear() {
                clearValue(index);
            }
        };
    }
}
