package dev.weir.internal.state;

import dev.weir.api.state.KeyedStateBackend;
import dev.weir.api.state.KeyedStateBackendFactory;

/** Makes {@link HeapKeyedStateBackend}s: the default keyed-state backend. */
public final class HeapStateBackendFactory implements KeyedStateBackendFactory {
    /** The one instance. */
    public static final HeapStateBackendFactory INSTANCE = new HeapStateBackendFactory();

    private HeapStateBackendFactory() {}

    @Override
    public String id() {
        return "heap";
    }

    /** Also reads the heap sections of version-2 state files. */
    @Override
    public boolean reads(String backendId) {
        return backendId.equals(id()) || backendId.equals(RawKeyedState.LEGACY_ID);
    }

    @Override
    public KeyedStateBackend create(Context context) {
        HeapKeyedStateBackend.Spare spare =
                context.previousAttempt() instanceof HeapKeyedStateBackend previous
                        ? previous.takeSpareForNext()
                        : null;
        return new HeapKeyedStateBackend(context.stepName(), context.maxParallelism(), spare);
    }

    private Object readResolve() {
        return INSTANCE;
    }
}
