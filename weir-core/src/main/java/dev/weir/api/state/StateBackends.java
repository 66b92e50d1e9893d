package dev.weir.api.state;

import dev.weir.internal.state.HeapStateBackendFactory;

/** The built-in keyed-state backends. */
public final class StateBackends {
    private StateBackends() {}

    /**
     * Keyed state on the Java heap (the default): columnar arrays per state, a snapshot is a few
     * array copies, restores decode straight into place. State must fit in the heap.
     *
     * @return the shared heap backend factory; pass it to {@code Pipeline.stateBackend(...)}
     */
    public static KeyedStateBackendFactory heap() {
        return HeapStateBackendFactory.INSTANCE;
    }
}
