package dev.weir.internal.runtime;

/**
 * Time a task spends in a state that begins and ends on the task's thread (its output waiting for
 * room downstream, its reads held back for alignment): the spans that ended, summed, plus the one
 * in progress when read. Plain fields, as the task's other metrics (design 010): written by the
 * thread running the task, read racily by observers (a {@code long} is not torn on a 64-bit JVM).
 */
final class Span {
    private static final long CLOSED = Long.MIN_VALUE;
    private long ended;
    private long since = CLOSED;

    /** True while a span is in progress. */
    boolean isOpen() {
        return since != CLOSED;
    }

    /** A span begins at {@code now}, unless one is in progress. */
    void begin(long now) {
        if (since == CLOSED) {
            since = now;
        }
    }

    /** The span in progress, if any, ends at {@code now}. */
    void end(long now) {
        long start = since;
        if (start != CLOSED) {
            ended += now - start;
            since = CLOSED;
        }
    }

    /** The time in spans up to {@code now}, the one in progress included. */
    long total(long now) {
        long start = since;
        long sum = ended;
        return sum + (start == CLOSED ? 0 : Math.max(0, now - start));
    }
}
