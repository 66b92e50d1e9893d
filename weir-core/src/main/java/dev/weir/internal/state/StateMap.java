package dev.weir.internal.state;

import java.util.Collections;
import java.util.HashMap;
import java.util.Map;

/**
 * The map of one key's {@code MapState}: a hash map that keeps its read-only view, so that {@code
 * entries()}, called for every record by functions that scan a key's map (session windows look at
 * the key's open sessions), does not make a new view and key set each time.
 *
 * <p>It belongs to the backend whose token is its {@link #owner}: only then may the backend change
 * it in place. A snapshot takes a new token, so every map it holds is shared from then on and is
 * copied before its next change (null: decoded from a checkpoint, treated as shared).
 */
final class StateMap<K, V> extends HashMap<K, V> {
    private static final long serialVersionUID = 1L;

    private transient Map<K, V> readOnly;

    /** The token of the backend that may change this map; null if none. */
    final transient Object owner;

    StateMap() {
        this.owner = null;
    }

    StateMap(Object owner) {
        this.owner = owner;
    }

    StateMap(Map<? extends K, ? extends V> entries, Object owner) {
        super(entries);
        this.owner = owner;
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
}
