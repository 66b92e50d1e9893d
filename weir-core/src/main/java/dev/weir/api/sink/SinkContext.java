package dev.weir.api.sink;

/** What a sink writer learns about where it runs. */
public interface SinkContext {
    /**
     * The name of the pipeline the sink runs in. Part of deterministic transaction ids, so two jobs
     * writing to one external system do not take each other's transactions for their own.
     *
     * @return the job's name
     */
    String jobName();

    /** {@return the name the sink was given in the pipeline} */
    String sinkName();

    /** {@return the index of the sink subtask that owns the writer, from 0} */
    int subtaskIndex();

    /** {@return the number of subtasks of the sink} */
    int parallelism();

    /**
     * The checkpoint this run of the job restored, which says what output of earlier runs a
     * transactional sink may find committed:
     *
     * <ul>
     *   <li>{@code n > 0}: checkpoint or savepoint {@code n} was restored. Output this sink
     *       committed for a checkpoint newer than {@code n} (other than the committables restored
     *       with {@code n}, which are committed again) means a newer checkpoint completed and was
     *       lost: replaying from {@code n} would write that output twice, so the sink must refuse
     *       to run (see {@link TransactionalWriter#recoverOwned}).
     *   <li>{@code 0}: the run asked to resume but found no complete checkpoint, so any output this
     *       sink committed earlier belongs to a checkpoint that is gone: refuse likewise.
     *   <li>{@code -1}: the run started fresh by request (resume {@code "none"}, or no
     *       checkpointing); output of earlier runs is the user's to keep or remove.
     * </ul>
     *
     * @return the restored checkpoint's id, 0 or -1 as above; -1 by default
     */
    default long restoredCheckpointId() {
        return -1;
    }
}
