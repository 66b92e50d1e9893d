package dev.weir.internal.state;

import java.util.AbstractCollection;
import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.ConcurrentModificationException;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;

/**
 * The map of one key's {@code MapState}. Most keys hold a few entries (a key's open windows: one
 * for tumbling windows, a handful for sliding ones and sessions), so up to {@link #LINEAR} entries
 * are kept in one array of key and value pairs, in the order they were added, and found by a scan:
 * the key's map, then its array, where a hash map would go from the map to its table, to a node,
 * and to the node's key, a cache miss each once the keys outgrow the caches (Nexmark q7: 9 % of the
 * workers' time was the hash map's lookup). A map that grows beyond that becomes a hash map.
 *
 * <p>It keeps its read-only view, so that {@code entries()}, called for every record by functions
 * that scan a key's map (session windows look at the key's open sessions), does not make a new view
 * each time; its views fail fast, like a hash map's, if the map changes during an iteration.
 *
 * <p>It belongs to the backend whose token is its {@link #owner}: only then may the backend change
 * it in place. A snapshot takes a new token, so every map it holds is shared from then on and is
 * copied before its next change (null: decoded from a checkpoint, treated as shared).
 */
final class StateMap<K, V> extends AbstractMap<K, V> {
    /** Most entries kept in the array; a map with more is a hash map. */
    static final int LINEAR = 8;

    private static final Object[] NONE = {};

    /** Key {@code i} at {@code 2i}, its value at {@code 2i + 1}; unused while hashed. */
    private Object[] pairs = NONE;

    /** Entries in {@link #pairs}. */
    private int count;

    /** The entries once there are more than {@link #LINEAR}, else null. */
    private HashMap<K, V> hashed;

    /** Changes of the set of keys, so that an iteration can tell it was overtaken. */
    private int changes;

    private Map<K, V> readOnly;
    private Set<K> keys;
    private Set<Map.Entry<K, V>> entries;
    private Collection<V> values;

    /** The token of the backend that may change this map; null if none. */
    final Object owner;

    StateMap() {
        this.owner = null;
    }

    StateMap(Object owner) {
        this.owner = owner;
    }

    StateMap(Map<? extends K, ? extends V> entries, Object owner) {
        this.owner = owner;
        if (entries instanceof StateMap<? extends K, ? extends V> other && other.hashed == null) {
            pairs = other.count == 0 ? NONE : Arrays.copyOf(other.pairs, 2 * other.count);
            count = other.count;
        } else {
            putAll(entries);
        }
    }

    /** This map, unmodifiable; the same view every time. */
    Map<K, V> readOnly() {
        Map<K, V> view = readOnly;
        if (view == null) {
            view = Collections.unmodifiableMap(this);
            readOnly = view;
        }
        return view;
    }

    /** The position of {@code key}'s pair in {@link #pairs}, or -1. */
    private int indexOf(Object key) {
        Object[] held = pairs;
        int end = 2 * count;
        for (int i = 0; i < end; i += 2) {
            if (held[i] == key) {
                return i; // keys are often the very object put (windows are cached)
            }
        }
        if (key != null) {
            for (int i = 0; i < end; i += 2) {
                if (key.equals(held[i])) {
                    return i;
                }
            }
        }
        return -1;
    }

    @Override
    public int size() {
        HashMap<K, V> map = hashed;
        return map != null ? map.size() : count;
    }

    @Override
    public boolean isEmpty() {
        return size() == 0;
    }

    @Override
    @SuppressWarnings("unchecked")
    public V get(Object key) {
        HashMap<K, V> map = hashed;
        if (map != null) {
            return map.get(key);
        }
        int at = indexOf(key);
        return at < 0 ? null : (V) pairs[at + 1];
    }

    @Override
    public boolean containsKey(Object key) {
        HashMap<K, V> map = hashed;
        return map != null ? map.containsKey(key) : indexOf(key) >= 0;
    }

    @Override
    @SuppressWarnings("unchecked")
    public V put(K key, V value) {
        HashMap<K, V> map = hashed;
        if (map != null) {
            int before = map.size();
            V old = map.put(key, value);
            if (map.size() != before) {
                changes++;
            }
            return old;
        }
        int at = indexOf(key);
        if (at >= 0) {
            V old = (V) pairs[at + 1];
            pairs[at + 1] = value;
            return old;
        }
        changes++;
        if (count == LINEAR) {
            map = new HashMap<>(4 * LINEAR);
            for (int i = 0; i < 2 * count; i += 2) {
                map.put((K) pairs[i], (V) pairs[i + 1]);
            }
            map.put(key, value);
            hashed = map;
            pairs = NONE;
            count = 0;
            return null;
        }
        if (2 * count == pairs.length) {
            pairs = Arrays.copyOf(pairs, count == 0 ? 2 : 4 * count);
        }
        pairs[2 * count] = key;
        pairs[2 * count + 1] = value;
        count++;
        return null;
    }

    @Override
    @SuppressWarnings("unchecked")
    public V remove(Object key) {
        HashMap<K, V> map = hashed;
        if (map != null) {
            if (!map.containsKey(key)) {
                return null;
            }
            changes++;
            V old = map.remove(key);
            if (map.isEmpty()) {
                hashed = null; // back to the array for the entries to come
            }
            return old;
        }
        int at = indexOf(key);
        if (at < 0) {
            return null;
        }
        changes++;
        V old = (V) pairs[at + 1];
        int end = 2 * count;
        System.arraycopy(pairs, at + 2, pairs, at, end - at - 2); // keeps the order of the rest
        pairs[end - 2] = null;
        pairs[end - 1] = null;
        count--;
        return old;
    }

    @Override
    public void clear() {
        if (size() > 0) {
            changes++;
        }
        hashed = null;
        pairs = NONE;
        count = 0;
    }

    @Override
    public Set<K> keySet() {
        Set<K> view = keys;
        if (view == null) {
            view = new Keys();
            keys = view;
        }
        return view;
    }

    @Override
    public Collection<V> values() {
        Collection<V> view = values;
        if (view == null) {
            view = new Values();
            values = view;
        }
        return view;
    }

    @Override
    public Set<Map.Entry<K, V>> entrySet() {
        Set<Map.Entry<K, V>> view = entries;
        if (view == null) {
            view = new Entries();
            entries = view;
        }
        return view;
    }

    /**
     * Walks the pairs in order; fails fast if the keys change meanwhile. The end is the count when
     * the walk began (the keys did not change since, or the next call fails): a removal or the
     * switch to a hash map must not end a loop early, with no exception, where a hash map's
     * iterator would throw.
     */
    private abstract class Walk<E> implements Iterator<E> {
        private final int expected = changes;
        private final int end = count;
        private int next;

        @Override
        public boolean hasNext() {
            return next < end;
        }

        /** The position of the next pair's key. */
        final int advance() {
            if (changes != expected) {
                throw new ConcurrentModificationException(
                        "a MapState changed while its entries were iterated");
            }
            if (next >= end) {
                throw new NoSuchElementException();
            }
            return 2 * next++;
        }
    }

    private final class Keys extends AbstractSet<K> {
        @Override
        public Iterator<K> iterator() {
            HashMap<K, V> map = hashed;
            if (map != null) {
                return map.keySet().iterator();
            }
            return new Walk<K>() {
                @Override
                @SuppressWarnings("unchecked")
                public K next() {
                    return (K) pairs[advance()];
                }
            };
        }

        @Override
        public int size() {
            return StateMap.this.size();
        }

        @Override
        public boolean contains(Object key) {
            return containsKey(key);
        }
    }

    private final class Values extends AbstractCollection<V> {
        @Override
        public Iterator<V> iterator() {
            HashMap<K, V> map = hashed;
            if (map != null) {
                return map.values().iterator();
            }
            return new Walk<V>() {
                @Override
                @SuppressWarnings("unchecked")
                public V next() {
                    return (V) pairs[advance() + 1];
                }
            };
        }

        @Override
        public int size() {
            return StateMap.this.size();
        }
    }

    private final class Entries extends AbstractSet<Map.Entry<K, V>> {
        @Override
        public Iterator<Map.Entry<K, V>> iterator() {
            HashMap<K, V> map = hashed;
            if (map != null) {
                return map.entrySet().iterator();
            }
            return new Walk<Map.Entry<K, V>>() {
                @Override
                @SuppressWarnings("unchecked")
                public Map.Entry<K, V> next() {
                    int at = advance();
                    return new SimpleImmutableEntry<>((K) pairs[at], (V) pairs[at + 1]);
                }
            };
        }

        @Override
        public int size() {
            return StateMap.this.size();
        }
    }
}
