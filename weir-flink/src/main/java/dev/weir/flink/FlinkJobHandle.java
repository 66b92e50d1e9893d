package dev.weir.flink;

import dev.weir.api.JobFailedException;
import dev.weir.api.JobHandle;
import dev.weir.api.JobResult;
import dev.weir.api.checkpoint.CheckpointStats;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;

/**
 * A Weir {@link JobHandle} over Flink's {@link JobClient}. A failure is reported with the user's
 * exception as the cause, Flink's wrappers removed. Flink's client cannot trigger a checkpoint on
 * demand: {@link #triggerCheckpoint} fails and checkpoints follow the interval; savepoints are
 * Flink savepoints (restore one with {@code Pipeline.fromSavepoint} on this runner).
 */
final class FlinkJobHandle implements JobHandle {
    private final String name;
    private final JobClient client;
    private final AtomicInteger attempts;
    private final long startNanos;
    private final CompletableFuture<JobResult> result;
    private volatile boolean cancelled;

    /**
     * The stop-with-savepoint's outcome, set when one is asked for (the job's end is then not
     * "finished"); null while none was.
     */
    private volatile CompletableFuture<CheckpointStats> stopped;

    FlinkJobHandle(
            String name,
            JobClient client,
            AtomicInteger attempts,
            long startNanos,
            String jobId,
            Path checkpointDirectory) {
        this.name = name;
        this.client = client;
        this.attempts = attempts;
        this.startNanos = startNanos;
        this.result =
                client.getJobExecutionResult()
                        .handle(
                                (done, failure) -> {
                                    Shared.release(jobId);
                                    if (failure != null) {
                                        throw new CompletionException(failure);
                                    }
                                    if (checkpointDirectory != null && stopped == null) {
                                        markFinished(checkpointDirectory, client);
                                    }
                                    return done;
                                })
                        .thenCompose(
                                done -> {
                                    // The job's run time as Flink measures it: the local
                                    // cluster's start-up is not the pipeline's.
                                    Duration ran =
                                            Duration.ofNanos(
                                                    done.getNetRuntime(TimeUnit.MICROSECONDS)
                                                            * 1000);
                                    CompletableFuture<CheckpointStats> stop = stopped;
                                    if (stop == null) {
                                        return CompletableFuture.completedFuture(
                                                new JobResult(name, ran, attempts.get(), null));
                                    }
                                    // Stopped with a savepoint: the result names it, as on
                                    // Weir's runtime; a stop that failed (the job finished its
                                    // input first) names none.
                                    return stop.handle(
                                            (savepoint, stopFailure) ->
                                                    new JobResult(
                                                            name,
                                                            ran,
                                                            attempts.get(),
                                                            savepoint == null
                                                                    ? null
                                                                    : savepoint.path()));
                                });
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public JobResult await() throws InterruptedException {
        try {
            return result.get();
        } catch (ExecutionException e) {
            throw failure(e);
        }
    }

    @Override
    public JobResult await(Duration timeout) throws InterruptedException, TimeoutException {
        try {
            return result.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            throw failure(e);
        }
    }

    private RuntimeException failure(ExecutionException e) {
        if (cancelled) {
            CancellationException cancel =
                    new CancellationException("job '" + name + "' cancelled");
            cancel.initCause(e.getCause());
            return cancel;
        }
        return new JobFailedException(name, rootCause(e));
    }

    /** The first exception in the chain that is not Flink's or a future's wrapper. */
    static Throwable rootCause(Throwable failure) {
        Throwable t = failure;
        while (t.getCause() != null && t.getCause() != t && isWrapper(t)) {
            t = t.getCause();
        }
        return t;
    }

    private static boolean isWrapper(Throwable t) {
        return t instanceof ExecutionException
                || t instanceof CompletionException
                || t.getClass().getName().startsWith("org.apache.flink.")
                // Flink's wrapper of a key selector's failure (KeyGroupStreamPartitioner).
                || (t.getClass() == RuntimeException.class
                        && t.getMessage() != null
                        && t.getMessage().startsWith("Could not extract key from "));
    }

    @Override
    public void cancel() {
        cancelled = true;
        if (!result.isDone()) {
            client.cancel();
        }
    }

    @Override
    public boolean isDone() {
        return result.isDone();
    }

    @Override
    public CompletableFuture<CheckpointStats> triggerCheckpoint() {
        return CompletableFuture.failedFuture(
                new UnsupportedOperationException(
                        "Flink's job client cannot trigger a checkpoint; on FlinkRunner checkpoints"
                                + " follow the configured interval"));
    }

    @Override
    public CompletableFuture<CheckpointStats> triggerSavepoint(Path directory) {
        return client.triggerSavepoint(
                        directory.toAbsolutePath().toUri().toString(),
                        SavepointFormatType.CANONICAL)
                .thenApply(FlinkJobHandle::savepointStats);
    }

    @Override
    public CompletableFuture<CheckpointStats> stopWithSavepoint(Path directory) {
        // Known before the client is asked, so the job's end, however soon, sees the stop.
        CompletableFuture<CheckpointStats> stop = new CompletableFuture<>();
        stopped = stop;
        client.stopWithSavepoint(
                        false,
                        directory.toAbsolutePath().toUri().toString(),
                        SavepointFormatType.CANONICAL)
                .thenApply(FlinkJobHandle::savepointStats)
                .whenComplete(
                        (savepoint, failure) -> {
                            if (failure != null) {
                                stop.completeExceptionally(failure);
                            } else {
                                stop.complete(savepoint);
                            }
                        });
        return stop;
    }

    /** Writes {@link Translator#FINISHED_MARKER}: this job's end, for the next run to see. */
    private static void markFinished(Path checkpointDirectory, JobClient client) {
        try {
            Files.createDirectories(checkpointDirectory);
            Files.writeString(
                    checkpointDirectory.resolve(Translator.FINISHED_MARKER),
                    "Flink job "
                            + client.getJobID()
                            + ", finished "
                            + java.time.Instant.now()
                            + "\n");
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "the job finished, but its end could not be recorded in " + checkpointDirectory,
                    e);
        }
    }

    private static CheckpointStats savepointStats(String location) {
        Path path = Path.of(java.net.URI.create(location));
        return new CheckpointStats(0, true, System.currentTimeMillis(), 0, 0, 0, path, List.of());
    }

    @Override
    public List<CheckpointStats> checkpointStats() {
        return List.of();
    }

    @Override
    public int restarts() {
        return attempts.get();
    }
}
