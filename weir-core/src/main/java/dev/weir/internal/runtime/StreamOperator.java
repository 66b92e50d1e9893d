package dev.weir.internal.runtime;

/**
 * The runtime's operator contract: one instance per subtask, single-threaded.
 *
 * <h2>How the methods are called</h2>
 *
 * On the task's thread only: {@link #open} once; {@link #processElement} per record; {@link
 * #snapshotState} when a checkpoint barrier has been aligned at the task; {@link #finish} once when
 * all input has ended (may still emit); {@link #close} always, also after failure or cancel.
 * Exceptions from user code are wrapped in {@link UserCodeException} so the job reports the user's
 * exception as its root cause.
 */
public interface StreamOperator {
    /** Prepares the operator; {@code context} stays valid until {@link #close}. */
    void open(OperatorContext context) throws Exception;

    /** Processes one record, emitting results to the context's output. */
    void processElement(Object record);

    /** Called when all input has ended; may emit final records. */
    default void finish() throws Exception {}

    /** Releases resources; called exactly once, after everything else. */
    default void close() throws Exception {}
}
