package dev.weir.api.testing;

/**
 * The first failure of a step that the test did not inject, shared by a {@link PipelineTestDriver},
 * its inputs and its outputs: whichever of them the test calls next throws it, and {@link
 * PipelineTestDriver#close()} throws it if none did. Guarded by the driver's lock.
 */
final class JobFailure {
    private Throwable cause;
    private boolean reported;

    /** Keeps {@code failure} unless an earlier one is kept already. */
    void note(Throwable failure) {
        if (cause == null) {
            cause = failure;
        }
    }

    /** True once a failure was noted. */
    boolean happened() {
        return cause != null;
    }

    /**
     * Throws the noted failure, if any, naming {@code when} the test met it; remembers that the
     * test was told.
     */
    void throwIfAny(String when) {
        if (cause != null) {
            reported = true;
            throw new IllegalStateException(
                    "the job failed (seen " + when + "): " + rootMessage(cause), cause);
        }
    }

    /** True if a failure was noted and nothing has thrown it to the test yet. */
    boolean unreported() {
        return cause != null && !reported;
    }

    private static String rootMessage(Throwable failure) {
        StringBuilder text = new StringBuilder(String.valueOf(failure.getMessage()));
        Throwable root = failure;
        // Bounded: causes can form a loop (a.initCause(b); b.initCause(a)).
        for (int depth = 0; root.getCause() != null && root.getCause() != root && depth < 100; ) {
            root = root.getCause();
            depth++;
        }
        if (root != failure) {
            text.append(" (caused by ").append(root).append(')');
        }
        return text.toString();
    }
}
