package dev.weir.api.testing;

/**
 * The named places in Weir's checkpoint and sink protocol where a crash test can kill the process
 * (or, in-process, fail the task): every point a proof of exactly-once must survive. {@code weir
 * verify} iterates them all.
 *
 * <p>Arm one with the JVM property {@code -Dweir.fault=<id>:<k>}: the k-th time the point is
 * reached the JVM kills itself with SIGKILL, so nothing after it runs and no buffer is flushed. In
 * a test within one JVM, {@link Faults#throwAt} fails the task there instead. Unarmed, reaching a
 * point costs nothing measurable.
 */
public enum FaultPoint {
    /** A source task emitted a batch. */
    SOURCE_AFTER_POLL("source.after-poll"),
    /** A task's state file is about to be written. */
    SNAPSHOT_BEFORE_WRITE("snapshot.before-write"),
    /** Half of a state file is written. */
    SNAPSHOT_MID_WRITE("snapshot.mid-write"),
    /** A state file is written but not forced to disk. */
    SNAPSHOT_BEFORE_FSYNC("snapshot.before-fsync"),
    /** A task aligned a barrier on all its inputs and is about to snapshot. */
    BARRIER_ALIGNED("barrier.aligned"),
    /** Every task acknowledged a checkpoint; its manifest is not written yet. */
    CHECKPOINT_ALL_ACKNOWLEDGED("checkpoint.all-acknowledged"),
    /** The manifest is written and forced under a temporary name, not renamed yet. */
    MANIFEST_BEFORE_RENAME("manifest.before-rename"),
    /** The checkpoint is complete (manifest durable); sinks have not heard of it. */
    CHECKPOINT_MANIFEST_WRITTEN("checkpoint.manifest-written"),
    /** A sink is about to pre-commit (phase 1) at a barrier. */
    SINK_BEFORE_PRECOMMIT("sink.before-precommit"),
    /** A sink pre-committed. */
    SINK_AFTER_PRECOMMIT("sink.after-precommit"),
    /** A sink heard that a checkpoint completed and has not committed (phase 2) yet. */
    SINK_CHECKPOINT_COMPLETE_BEFORE_COMMIT("sink.checkpoint-complete-before-commit"),
    /** A sink committed one transaction. */
    SINK_AFTER_COMMIT("sink.after-commit"),
    /** A restarted task begins restoring its state. */
    RESTORE_STARTED("restore.started"),
    /** A restarted sink is about to commit a restored transaction again. */
    SINK_RECOMMIT("sink.recommit"),
    /** A restarted sink is about to abort the transactions it owns and did not restore. */
    SINK_BEFORE_RECOVER("sink.before-recover");

    private final String id;

    FaultPoint(String id) {
        this.id = id;
    }

    /**
     * The point's name, as {@code -Dweir.fault} takes it.
     *
     * @return the id, such as {@code snapshot.mid-write}
     */
    public String id() {
        return id;
    }

    /**
     * The point called {@code id}.
     *
     * @param id the point's id, as {@link #id()} gives it
     * @return the point
     * @throws IllegalArgumentException if no point has that id
     */
    public static FaultPoint of(String id) {
        for (FaultPoint point : values()) {
            if (point.id.equals(id)) {
                return point;
            }
        }
        throw new IllegalArgumentException("no fault point '" + id + "'");
    }
}
