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

    /**
     * The identity of this job instance, as opposed to its {@link #jobName() name}: a random id
     * created the first time a job used its checkpoint directory and kept in that directory (file
     * {@code _instance-id}). Every run of the job on that directory — restarts after failures, a
     * process started again, another parallelism, a fresh start with resume {@code "none"} — sees
     * the same id; a job on another checkpoint directory sees another, even with the same name (two
     * copies of one service, a test and a production deployment). A job continued from a savepoint
     * on a new directory is a new instance; a copy of a directory, {@code _instance-id} included,
     * is the same one.
     *
     * <p>For sinks that name things in an external system after the job (transactional ids,
     * consumer groups, lock rows): recording this id next to them lets a writer tell its own
     * leftovers from those of a different job with the same name, and refuse to touch the latter,
     * which the name alone cannot. It is not secret and not meant as part of such names (it changes
     * with the directory).
     *
     * <p>Available under the local runner whenever the job takes checkpoints; empty when the job
     * has no checkpoint directory (checkpointing off) and from runners that keep no such directory
     * (the Flink runner): a sink must then do without the check.
     *
     * @return the id, or "" when there is none (the default)
     */
    default String jobInstanceId() {
        return "";
    }

    /**
     * The job's checkpoint directory, where {@link #jobInstanceId()} is kept: for messages that
     * tell people which job instance is which (directories are what they know jobs by).
     *
     * @return the absolute directory, or empty when {@link #jobInstanceId()} is "" (the default)
     */
    default java.util.Optional<java.nio.file.Path> checkpointDirectory() {
        return java.util.Optional.empty();
    }
}
