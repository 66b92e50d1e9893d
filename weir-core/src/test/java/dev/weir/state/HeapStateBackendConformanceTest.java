package dev.weir.state;

import dev.weir.api.state.KeyedStateBackendFactory;
import dev.weir.api.state.StateBackends;

/** The heap backend passes the keyed-state backend conformance suite. */
class HeapStateBackendConformanceTest extends KeyedStateBackendConformance {
    @Override
    protected KeyedStateBackendFactory factory() {
        return StateBackends.heap();
    }
}
