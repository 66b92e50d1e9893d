package dev.weir.api.testing;

import dev.weir.internal.testhooks.FaultPoints;

/**
 * Fails tasks at {@link FaultPoint}s inside this JVM, for tests of connectors and jobs: the
 * in-process counterpart of {@code -Dweir.fault}, which kills the JVM. Global to the JVM; disarm
 * after each test.
 */
public final class Faults {
    private Faults() {}

    /**
     * The {@code count}-th time {@code point} is reached from now on, the task reaching it throws
     * (a task failure, which the job's restart strategy handles).
     *
     * @param point where to fail
     * @param count which arrival fails, from 1; only that one, and a count below 1 never fails.
     *     Arming the same point again replaces it
     */
    public static void throwAt(FaultPoint point, long count) {
        FaultPoints.throwAt(point, count);
    }

    /** Disarms every {@link #throwAt}. */
    public static void disarm() {
        FaultPoints.disarm();
    }
}
