package dev.weir.api;

import dev.weir.api.checkpoint.CheckpointStats;
import java.nio.file.Path;

/**
 * Hears about a job's checkpoints, failures and restores.
 *
 * <p>Called on Weir's internal threads; keep the calls short and do not block.
 */
public interface JobListener {
    /** Checkpoint {@code stats.id()} is complete and durable. */
    default void onCheckpointComplete(CheckpointStats stats) {}

    /** A task failed; {@code willRestart} tells whether the restart strategy restarts the job. */
    default void onFailure(Throwable cause, int attempt, boolean willRestart) {}

    /** The job is about to resume from the checkpoint {@code checkpointId} in {@code path}. */
    default void onRestore(long checkpointId, Path path) {}
}
