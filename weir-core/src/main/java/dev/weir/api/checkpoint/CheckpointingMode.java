package dev.weir.api.checkpoint;

import dev.weir.api.Guarantee;

/** How the engine takes checkpoints, and so what it guarantees for state. */
public enum CheckpointingMode {
    /**
     * Aligned barriers: a task with several inputs stops reading an input that delivered Barrier(n)
     * until all have, so each record affects restored state exactly once.
     */
    EXACTLY_ONCE(Guarantee.EXACTLY_ONCE),
    /**
     * Unaligned counting of barriers: nothing blocks, but records that overtook a barrier are in
     * the snapshot and replayed too, so after a failure they may count twice.
     */
    AT_LEAST_ONCE(Guarantee.AT_LEAST_ONCE),
    /** No checkpoints: a failure loses the state and restarts from scratch or stops. */
    NONE(Guarantee.AT_MOST_ONCE);

    private final Guarantee guarantee;

    CheckpointingMode(Guarantee guarantee) {
        this.guarantee = guarantee;
    }

    /**
     * The guarantee the engine gives for state in this mode.
     *
     * @return exactly-once, at-least-once, or at-most-once for {@link #NONE}
     */
    public Guarantee guarantee() {
        return guarantee;
    }
}
