package dev.weir.internal.runtime;

import dev.weir.internal.operators.Output;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Keeps the subtasks of one source close in event time: a subtask whose output watermark is more
 * than the maximum drift ahead of the slowest of its siblings skips its reads until they catch up.
 *
 * <h2>Why</h2>
 *
 * A keyed step after the source takes the minimum watermark over its inputs, so it holds every
 * record of the fast subtasks in its window and join state until the slowest subtask's watermark
 * lets the windows fire. Workers run tasks cooperatively, and a worker whose other tasks cost less
 * gives its source subtask more turns: without a bound, the drift between two subtasks of a Nexmark
 * source grew to 300 s of event time in a 200 M-event run, and q8's window state to hundreds of
 * megabytes, most of its collector's work and of every checkpoint's bytes. Flink calls this
 * watermark alignment ({@code WatermarkStrategy#withWatermarkAlignment}, off by default); Weir's
 * scheduler shares cores between subtasks, so it aligns the subtasks of each source by default
 * ({@code Pipeline#watermarkAlignment}).
 *
 * <h2>Which siblings count</h2>
 *
 * Only siblings that can catch up hold a subtask back, those with records to read: one with no
 * watermark yet, one that is idle or ended, one whose last poll found nothing to read (a sparse
 * partition: waiting for it would pause the others each time one of its records came), or one whose
 * watermark has not moved for the stall time (records with old timestamps only, a source blocked on
 * something else) does not. Skipping a read never changes results: a subtask's records are late
 * downstream only behind its own watermark, which a pause does not move; and a paused subtask is
 * not idle: the task tells its source's splits and its chained timestamp assigner, whose idleness
 * clocks then stand still (a breaker found records of a split 3 s behind its sibling late after a
 * pause longer than the idleness timeout). Barriers, timers and periodic watermarks of a paused
 * subtask go on.
 *
 * <p>Each subtask writes its own slot on its task's thread; any subtask reads all of them.
 */
final class SourceAlignment {
    private final long maxDriftMillis;
    private final long stallNanos;
    private final AtomicLongArray watermarks;
    private final AtomicLongArray movedAt;
    private final AtomicIntegerArray reading;

    /**
     * The alignment of {@code subtasks} subtasks: at most {@code maxDriftMillis} of event time
     * apart; a sibling whose watermark stood still for {@code stallNanos} is not waited for.
     */
    SourceAlignment(int subtasks, long maxDriftMillis, long stallNanos) {
        if (maxDriftMillis <= 0 || stallNanos <= 0) {
            throw new IllegalArgumentException(
                    "source alignment needs a positive drift and stall time, got "
                            + maxDriftMillis
                            + " ms and "
                            + stallNanos
                            + " ns");
        }
        this.maxDriftMillis = maxDriftMillis;
        this.stallNanos = stallNanos;
        this.watermarks = new AtomicLongArray(subtasks);
        this.movedAt = new AtomicLongArray(subtasks);
        this.reading = new AtomicIntegerArray(subtasks);
        for (int i = 0; i < subtasks; i++) {
            watermarks.set(i, Long.MIN_VALUE);
        }
    }

    /**
     * Subtask {@code subtask}'s output watermark is {@code watermark} at {@code nowNanos}, and its
     * last poll found records to read ({@code reading}) or not.
     */
    void publish(int subtask, long watermark, boolean reading, long nowNanos) {
        int flag = reading ? 1 : 0;
        if (this.reading.get(subtask) != flag) {
            this.reading.lazySet(subtask, flag); // siblings read the line: written only on change
        }
        if (watermarks.get(subtask) != watermark) {
            movedAt.set(subtask, nowNanos);
            watermarks.set(subtask, watermark);
        }
    }

    /**
     * True if subtask {@code subtask} may read: it is not more than the maximum drift ahead of the
     * slowest sibling that counts.
     */
    boolean mayRead(int subtask, long nowNanos) {
        long own = watermarks.get(subtask);
        if (!isEventTime(own)) {
            return true;
        }
        long slowest = Long.MAX_VALUE;
        for (int i = 0; i < watermarks.length(); i++) {
            if (i == subtask) {
                continue;
            }
            long other = watermarks.get(i);
            if (isEventTime(other)
                    && other < slowest
                    && reading.get(i) == 1
                    && nowNanos - movedAt.get(i) < stallNanos) {
                slowest = other;
            }
        }
        return slowest == Long.MAX_VALUE
                || slowest > Long.MAX_VALUE - maxDriftMillis
                || own <= slowest + maxDriftMillis;
    }

    /** True for a watermark that is a point in event time: not none, idle or the end. */
    private static boolean isEventTime(long watermark) {
        return watermark != Long.MIN_VALUE
                && watermark != Output.IDLE
                && watermark != Long.MAX_VALUE;
    }
}
