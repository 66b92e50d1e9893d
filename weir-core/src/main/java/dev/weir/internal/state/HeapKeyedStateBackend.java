package dev.weir.internal.state;

import dev.weir.api.codec.Codec;
import dev.weir.api.state.KeyedStateStore;
import dev.weir.api.state.ListState;
import dev.weir.api.state.MapState;
import dev.weir.api.state.ValueState;
import java.util.ArrayList;
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
                values = java.util.Arrays.copyOf(values, index + 1);
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

    private final int maxParallelism;
    private final Map<Object, Slot> slots = new HashMap<>();
    private final List<Declaration> declarations = new ArrayList<>();
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

    /** Number of keys that hold any state. */
    public int keyCount() {
        return slots.size();
    }

    public List<Declaration> declarations() {
        return Collections.unmodifiableList(declarations);
    }

    public Map<Object, Slot> slots() {
        return slots;
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
        declarations.add(new Declaration(name, kind, codec, valueCodec));
        return declarations.size() - 1;
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
