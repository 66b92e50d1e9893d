package dev.weir.api;

import dev.weir.api.checkpoint.CheckpointStats;
import java.nio.file.Path;

/**
 * Hears about a job's checkpoints, failures and restores.
 *
 * <p>Called on Weir's internal threads; keep the calls short and do not block.
 */
public interface JobListener {
    /**
     * Checkpoint {@code stats.id()} is complete and durable.
     *
     * @param stats the checkpoint's id, size, duration and path
     */
    default void onCheckpointComplete(CheckpointStats stats) {}

    /**
     * A task failed; {@code willRestart} tells whether the restart strategy restarts the job.
     *
     * @param cause the failure, as thrown by the task
     * @param attempt restarts granted so far, counting this one when {@code willRestart} is true
     * @param willRestart true if the job restarts; false if it now fails
     */
    default void onFailure(Throwable cause, int attempt, boolean willRestart) {}

    /**
     * The job is about to resume from the checkpoint {@code checkpointId} in {@code path}.
     *
     * @param checkpointId the id of the checkpoint or savepoint being restored
     * @param path its directory
     */
    default void onRestore(long checkpointId, Path path) {}
}
