package dev.weir.api.checkpoint;

import java.nio.file.Path;
import java.util.List;

/**
 * What one completed checkpoint cost.
 *
 * @param id the checkpoint id (grows across restarts)
 * @param savepoint true for a savepoint
 * @param triggerEpochMillis wall-clock time it was triggered
 * @param durationMillis trigger to durable manifest
 * @param sizeBytes bytes of all its files
 * @param maxAlignmentNanos the longest any task waited for barriers on all inputs
 * @param path its directory
 * @param tasks per-task figures
 */
public record CheckpointStats(
        long id,
        boolean savepoint,
        long triggerEpochMillis,
        long durationMillis,
        long sizeBytes,
        long maxAlignmentNanos,
        Path path,
        List<TaskStats> tasks) {
    /**
     * One task's part.
     *
     * @param task the task's name ({@code vertex#subtask})
     * @param alignmentNanos time from its first to its last barrier
     * @param syncNanos time the task spent copying state (its processing paused)
     * @param asyncNanos time another thread spent serialising its state, then writing and syncing
     *     its file
     * @param bytes size of its state file
     */
    public record TaskStats(
            String task, long alignmentNanos, long syncNanos, long asyncNanos, long bytes) {}
}
