package dev.weir.api;

import dev.weir.api.checkpoint.CheckpointStats;
import dev.weir.api.metrics.JobMetrics;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;

/**
 * A running job, returned by {@link Pipeline#start()}.
 *
 * <p>Thread-safe. Every thread the job started has ended by the time {@link #await} returns or
 * throws.
 */
public interface JobHandle {
    /**
     * The job's name.
     *
     * @return the pipeline's name
     */
    String name();

    /**
     * Waits for the job to end.
     *
     * @return the result of a job that finished its input
     * @throws JobFailedException if the job failed; {@code getCause()} is the root cause
     * @throws java.util.concurrent.CancellationException if the job was cancelled
     * @throws InterruptedException if this thread is interrupted while waiting; the job keeps
     *     running
     */
    JobResult await() throws InterruptedException;

    /**
     * Waits at most {@code timeout} for the job to end.
     *
     * @param timeout the longest time to wait
     * @return the result of a job that finished its input
     * @throws JobFailedException if the job failed; {@code getCause()} is the root cause
     * @throws java.util.concurrent.CancellationException if the job was cancelled
     * @throws InterruptedException if this thread is interrupted while waiting; the job keeps
     *     running
     * @throws TimeoutException if it is still running then
     */
    JobResult await(Duration timeout) throws InterruptedException, TimeoutException;

    /** Asks the job to stop; {@link #await} then throws a cancellation. Idempotent. */
    void cancel();

    /**
     * True once the job has ended, in any way.
     *
     * @return true if the job finished, failed, was cancelled or stopped with a savepoint
     */
    boolean isDone();

    /**
     * Triggers a checkpoint now; the future completes when it is durable, or fails if it is aborted
     * or checkpointing is off.
     *
     * @return the figures of the checkpoint once it is durable
     */
    CompletableFuture<CheckpointStats> triggerCheckpoint();

    /**
     * Takes a savepoint into a new sub-directory of {@code directory}; it is never deleted by
     * retention, and a pipeline can start from it with {@link Pipeline#fromSavepoint}.
     *
     * @param directory the parent directory; the savepoint gets a new sub-directory of it
     * @return the figures of the savepoint once it is durable; {@code CheckpointStats} names its
     *     path
     */
    CompletableFuture<CheckpointStats> triggerSavepoint(Path directory);

    /**
     * Takes a savepoint and then stops the job; {@link #await} returns a result whose {@link
     * JobResult#stoppedWithSavepoint()} is the savepoint. No checkpoint follows the savepoint, and
     * the job stops once its sinks have committed the savepoint's output (waiting at most 60 s), so
     * that output is visible when the job has stopped.
     *
     * @param directory the parent directory; the savepoint gets a new sub-directory of it
     * @return the figures of the savepoint once it is durable; the job stops after that. Fails if
     *     the job has already ended (its input ended, it failed or was stopped), naming its last
     *     checkpoint, from which a new run resumes
     */
    CompletableFuture<CheckpointStats> stopWithSavepoint(Path directory);

    /**
     * Figures of the completed checkpoints, oldest first (the last 1000).
     *
     * @return a copy; later checkpoints do not change it. Empty on a runner that keeps no figures
     */
    List<CheckpointStats> checkpointStats();

    /**
     * How many times the job restarted after a failure so far.
     *
     * @return the number of restarts since the job started
     */
    int restarts();

    /**
     * A live, read-only view of the job's figures: records per step, task time, channel fill,
     * checkpoints, restarts, source lag, sink commits. Reading it costs the job nothing; {@code
     * weir-metrics} binds it to a Micrometer registry. A runner that keeps no figures of its own
     * returns a view with checkpoints and restarts only.
     *
     * @return a view that stays current as the job runs
     */
    default JobMetrics metrics() {
        return JobMetrics.of(name(), this::restarts, this::checkpointStats);
    }
}
