package dev.weir.internal.runtime;

import java.util.Arrays;

/**
 * Barrier alignment of one task's input channels, as a small state machine: idle, or aligning
 * checkpoint {@code n} (invariant 2 of docs/design/001-checkpoints.md). Each event returns what the
 * task must do next. Single-threaded: the task's.
 *
 * <ul>
 *   <li>Idle: a barrier starts aligning its checkpoint.
 *   <li>Aligning n: a channel that delivered Barrier(n) is blocked (in exactly-once mode) until
 *       every channel that has not ended delivered it; then the checkpoint is aligned and the state
 *       is idle again. A newer barrier abandons the older alignment (that checkpoint times out); an
 *       older one is ignored. A channel that ends while aligning may complete the alignment.
 * </ul>
 */
final class BarrierAlignment {
    /** What the task does after an event. */
    enum Step {
        /** Nothing yet: keep reading the channels that are not blocked. */
        WAIT,
        /** Every open channel delivered the barrier: snapshot and forward it now. */
        ALIGNED
    }

    private final boolean[] seen;
    private final boolean[] ended;
    private final boolean blocking;
    private long aligning = -1;
    private long startNanos;

    /**
     * Aligns {@code channels} channels; with {@code blocking} (exactly-once) a channel that
     * delivered the barrier is held back.
     */
    BarrierAlignment(int channels, boolean blocking) {
        this.seen = new boolean[channels];
        this.ended = new boolean[channels];
        this.blocking = blocking;
    }

    /** Barrier({@code checkpointId}) arrived on {@code channel} at {@code nowNanos}. */
    Step onBarrier(int channel, long checkpointId, long nowNanos) {
        if (checkpointId < aligning) {
            return Step.WAIT; // an abandoned, older checkpoint
        }
        if (checkpointId > aligning) {
            Arrays.fill(seen, false);
            aligning = checkpointId;
            startNanos = nowNanos;
        }
        seen[channel] = true;
        return complete();
    }

    /** {@code channel} ended; it no longer holds an alignment up. */
    Step onEnd(int channel) {
        ended[channel] = true;
        return aligning >= 0 ? complete() : Step.WAIT;
    }

    private Step complete() {
        for (int i = 0; i < seen.length; i++) {
            if (!ended[i] && !seen[i]) {
                return Step.WAIT;
            }
        }
        return Step.ALIGNED;
    }

    /** The checkpoint being aligned (or just aligned), or -1. */
    long checkpointId() {
        return aligning;
    }

    /** When the alignment of {@link #checkpointId} began. */
    long startNanos() {
        return startNanos;
    }

    /** After {@link Step#ALIGNED}: back to idle, every channel unblocked. */
    void reset() {
        Arrays.fill(seen, false);
        aligning = -1;
    }

    /** True if {@code channel} must not be read now (it delivered the barrier being aligned). */
    boolean isBlocked(int channel) {
        return blocking && aligning >= 0 && seen[channel];
    }
}
