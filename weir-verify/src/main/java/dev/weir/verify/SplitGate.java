package dev.weir.verify;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * In a verify child that runs the job on Weir's runtime: once the first split that emitted records
 * has ended, holds every split still running until {@link #CHECKPOINTS} checkpoints have completed
 * since. The harness plans a kill "once some splits ended" for the moment two such checkpoints have
 * completed while other splits still run ({@link ChildWatch}); with the hold, that moment comes
 * however slow the machine is, instead of only when the splits' paces keep their ends apart.
 *
 * <p>The hold lasts at most {@link #MAX_HOLD_NANOS}, so a run whose checkpoints cannot complete (a
 * sink that is down, a seeded bug) is slowed, not stopped. On a Flink cluster the readers run in
 * other JVMs and the gate stays off.
 */
final class SplitGate {
    /** Checkpoints held for: the harness kills after two, and the third leaves the kill time. */
    static final int CHECKPOINTS = 3;

    /** The longest hold, in case checkpoints do not complete. */
    static final long MAX_HOLD_NANOS = TimeUnit.SECONDS.toNanos(5);

    private static volatile boolean enabled;
    private static final AtomicLong checkpoints = new AtomicLong();

    /** Checkpoints completed when the first split ended; -1 before. */
    private static volatile long checkpointsAtFirstEnd = -1;

    private static volatile long firstEndNanos;

    private SplitGate() {}

    /** Turns the gate on in this JVM (the verify child, on Weir's runtime). */
    static void enable() {
        enabled = true;
    }

    /** A checkpoint of the job in this JVM completed. */
    static void checkpointCompleted() {
        checkpoints.incrementAndGet();
    }

    /** A split ended after emitting {@code emitted} records in this run. */
    static synchronized void ended(long emitted) {
        if (enabled && emitted > 0 && checkpointsAtFirstEnd < 0) {
            firstEndNanos = System.nanoTime();
            checkpointsAtFirstEnd = checkpoints.get();
        }
    }

    /** True while the splits still running should read nothing. */
    static boolean holds() {
        long since = checkpointsAtFirstEnd;
        return since >= 0
                && checkpoints.get() - since < CHECKPOINTS
                && System.nanoTime() - firstEndNanos < MAX_HOLD_NANOS;
    }
}
