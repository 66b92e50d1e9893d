package dev.weir.internal.operators;

/**
 * The runtime's operator contract: one instance per subtask, single-threaded.
 *
 * <h2>How the methods are called</h2>
 *
 * On the task's thread only: {@link #open} once; {@link #processElement} per record; {@link
 * #snapshotOperatorState} at each aligned barrier; {@link #notifyCheckpointComplete} when a
 * checkpoint is durable; {@link #snapshotState} when a checkpoint barrier has been aligned at the
 * task; {@link #finish} once when all input has ended (may still emit); {@link #close} always, also
 * after failure or cancel. Exceptions from user code are wrapped in {@link UserCodeException} so
 * the job reports the user's exception as its root cause.
 */
public interface StreamOperator {
    /** Prepares the operator; {@code context} stays valid until {@link #close}. */
    void open(OperatorContext context) throws Exception;

    /** Processes one record, emitting results to the context's output. */
    void processElement(Object record);

    /**
     * Event time reached {@code watermark} at this operator (the minimum over its inputs): fire
     * event-time timers due by then. Returns whether the watermark passes on to the operator's
     * output (true for all but operators that make watermarks of their own).
     */
    default boolean processWatermark(long watermark) {
        return true;
    }

    /**
     * Returns this operator's non-keyed state at Barrier({@code checkpointId}), or null if it has
     * none. Keyed state is copied by the runtime.
     */
    default byte[] snapshotOperatorState(long checkpointId) throws Exception {
        return null;
    }

    /**
     * Restores non-keyed state before {@link #open}: the states of the old subtasks assigned to
     * this one (old subtask j goes to new subtask j mod parallelism; an operator with keyed state
     * gets the states of every old subtask). Not called on a fresh start.
     */
    default void restoreOperatorState(java.util.List<byte[]> states) throws Exception {}

    /**
     * Called once after {@link #open} and after the keyed state was restored into place (also on a
     * fresh start, with nothing restored): rebuild what is derived from keyed state.
     */
    default void afterStateRestored() throws Exception {}

    /**
     * The source task this operator is chained into skipped a read to wait for a slower sibling
     * (watermark alignment): the input is not idle, it is held back, so idleness timeouts must not
     * run meanwhile (a paused subtask marked idle would let its consumers' watermark pass its
     * records, which would then arrive late). Called for every read skipped.
     */
    default void sourcePaused() {}

    /** Checkpoint {@code checkpointId} is complete and durable; phase 2 of a sink commit. */
    default void notifyCheckpointComplete(long checkpointId) throws Exception {}

    /**
     * True while the operator, after its input ended, waits for a checkpoint to complete (a sink
     * whose last transaction is prepared but not committed); the task stays alive until then.
     */
    default boolean awaitsCommit() {
        return false;
    }

    /** Called when all input has ended; may emit final records. */
    default void finish() throws Exception {}

    /** Releases resources; called exactly once, after everything else. */
    default void close() throws Exception {}
}
