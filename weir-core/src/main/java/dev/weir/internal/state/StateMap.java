package dev.weir.internal.state;

import java.util.Collections;
import java.util.HashMap;
import java.util.Map;

/**
 * The map of one key's {@code MapState}: a hash map that keeps its read-only view, so that {@code
 * entries()}, called for every record by functions that scan a key's map (session windows look at
 * the key's open sessions), does not make a new view and key set each time.
 */
final class StateMap<K, V> extends HashMap<K, V> {
    private static final long serialVersionUID = 1L;

    private transient Map<K, V> readOnly;

    StateMap() {}

    StateMap(Map<? extends K, ? extends V> entries) {
        super(entries);
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
