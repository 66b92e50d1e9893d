package dev.weir.internal.checkpoint;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The on-disk side of the checkpoint protocol, in one place: where checkpoint {@code n} lives, how
 * a task's state file becomes durable, and the commit — data files forced, the checkpoint
 * directory's entry forced, the manifest written atomically (invariant 5 of
 * docs/design/001-checkpoints.md). The coordinator decides when; this decides how. The
 * coordinator's writer threads call {@link #writeTaskState} concurrently, for different tasks, and
 * {@link #begin} (whichever thread triggers) can run beside the I/O thread's {@link #commit},
 * {@link #abort} and {@link #prune}: implementations keep no state between calls unguarded.
 */
public interface CheckpointStorage extends AutoCloseable {
    /** The next checkpoint id: larger than any used here before (invariant 9). */
    long nextCheckpointId();

    /**
     * Creates the directory of checkpoint {@code id}, or of a savepoint under {@code
     * savepointParent} when it is not null; returns it.
     */
    Path begin(long id, Path savepointParent) throws IOException;

    /**
     * Writes the state file of task {@code taskName} into {@code checkpoint} and forces it to disk;
     * returns the manifest's entry for it.
     */
    Manifest.FileEntry writeTaskState(Path checkpoint, String taskName, byte[] bytes)
            throws IOException;

    /**
     * Commits {@code checkpoint}: forces its files and its directory entry, then writes {@code
     * manifest} atomically. The checkpoint is complete once this returns, and not before.
     */
    void commit(Path checkpoint, Manifest manifest) throws IOException;

    /** Deletes an aborted (never committed) checkpoint or savepoint. */
    void abort(Path checkpoint, long id, boolean savepoint) throws IOException;

    /**
     * The newest committed checkpoint, or a savepoint committed after it, with an id of at least
     * {@code minId}, if any.
     */
    Optional<Path> latestComplete(long minId);

    /**
     * Deletes committed checkpoints beyond those retained, and abandoned ones older than the newest
     * committed one that are not in flight ({@code oldestInFlight} and newer are kept).
     */
    void prune(long oldestInFlight);

    /**
     * Tries again to delete the aborted checkpoints whose {@link #abort} failed earlier in this
     * process (on a full disk: their ids could not be recorded), which a newer directory may now
     * keep from reuse. By default nothing.
     */
    default void retryAborted() {}

    /** The directory checkpoints are kept in. */
    Path directory();

    /**
     * The id of the job instance this storage belongs to: created once per checkpoint directory and
     * kept in it (see {@link dev.weir.api.sink.SinkContext#jobInstanceId()}).
     */
    String instanceId();

    /** Releases the directory (its lock) for the next job. */
    @Override
    void close();
}
