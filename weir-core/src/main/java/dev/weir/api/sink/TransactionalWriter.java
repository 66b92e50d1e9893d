package dev.weir.api.sink;

import java.util.List;

/**
 * The writer of one subtask of a {@link TwoPhaseCommitSink}.
 *
 * <h2>How the methods are called</h2>
 *
 * On the sink task's thread only. After a restore, first {@link #commit} for every committable the
 * checkpoint held (they may already be committed), then {@link #recoverOwned} once; then {@link
 * #write} for records, {@link #prepareCommit} at each checkpoint barrier (phase 1), and {@link
 * #commit} when that checkpoint is complete and durable (phase 2). {@link #close} always.
 *
 * @param <T> record type
 * @param <C> committable type: what phase 2 needs to finish a prepared transaction
 */
public interface TransactionalWriter<T, C> extends AutoCloseable {
    /**
     * Writes {@code record} into the open transaction.
     *
     * @param record the record; not null
     * @throws Exception if the write fails; the task fails and the open transaction is abandoned
     */
    void write(T record) throws Exception;

    /**
     * Phase 1 at Barrier({@code checkpointId}): flushes and prepares the open transaction so that
     * it survives a crash, and returns what commits it (null if it holds nothing); later records go
     * to a new transaction. Transaction ids should derive from job, sink, subtask and checkpoint
     * id, so a restarted job can find them.
     *
     * @param checkpointId the id of the checkpoint whose barrier arrived; {@link Long#MAX_VALUE} at
     *     the end of input of a job without checkpoints, whose commit follows at once
     * @return what {@link #commit} needs to finish the transaction, or null if it holds nothing
     * @throws Exception if the transaction cannot be prepared; the task fails, and with it the
     *     checkpoint
     */
    C prepareCommit(long checkpointId) throws Exception;

    /**
     * Phase 2: makes a prepared transaction visible. Must be idempotent: "already committed" is
     * success, because after a crash it is called again for the restored committables.
     *
     * @param committable what {@link #prepareCommit} returned, possibly in an earlier run
     * @throws Exception if the commit fails; the job fails and, after a restart, the commit is
     *     tried again from the checkpoint
     */
    void commit(C committable) throws Exception;

    /**
     * After the restored committables were committed: aborts every transaction left behind by a
     * previous run that this subtask owns (those of old subtasks {@code j} with {@code j %
     * parallelism == subtask}) and that is not among {@code committed}.
     *
     * <p>It must also refuse to run, by throwing {@link dev.weir.api.UnrecoverableException} with a
     * message naming the output and the fix, when it finds output this sink committed for a
     * checkpoint newer than {@link SinkContext#restoredCheckpointId()} (when that is not -1) that
     * is not among {@code committed}: a newer checkpoint completed and its metadata is lost, and
     * replaying from the older one would write that output twice (invariant 8 of
     * docs/design/001-checkpoints.md: no silent fallback).
     *
     * @param committed the committables just committed from the restored checkpoint
     * @param subtask this subtask's index
     * @param parallelism the sink's parallelism in this run
     * @throws Exception if aborting fails, or {@code UnrecoverableException} to refuse to run
     */
    void recoverOwned(List<C> committed, int subtask, int parallelism) throws Exception;

    @Override
    default void close() throws Exception {}
}
