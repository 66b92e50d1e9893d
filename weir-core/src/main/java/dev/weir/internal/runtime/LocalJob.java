package dev.weir.internal.runtime;

import dev.weir.api.JobFailedException;
import dev.weir.api.JobHandle;
import dev.weir.api.JobResult;
import dev.weir.api.UnrecoverableException;
import dev.weir.api.checkpoint.CheckpointStats;
import dev.weir.api.metrics.JobMetrics;
import dev.weir.internal.checkpoint.CheckpointStore;
import dev.weir.internal.checkpoint.RestoredCheckpoint;
import dev.weir.internal.graph.JobGraph;
import dev.weir.internal.graph.Node;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a job in this JVM. A driver thread builds an {@link Execution}, waits for it and, when it
 * fails, asks the restart strategy, then builds a new execution restored from the newest complete
 * checkpoint.
 */
public final class LocalJob implements JobHandle {
    private static final Logger LOG = LoggerFactory.getLogger(LocalJob.class);
    private static final int STATS_KEPT = 1000;

    private final JobGraph graph;
    private final JobSettings settings;
    private final String name;
    private final CompletableFuture<JobResult> result = new CompletableFuture<>();
    private final CountDownLatch cancelled = new CountDownLatch(1);
    private final ArrayDeque<CheckpointStats> stats = new ArrayDeque<>();
    private volatile Execution execution;
    private volatile Path stopSavepoint;

    /** The checkpoint or savepoint the first attempt restored, null if it started fresh. */
    private Path startedFrom;

    /**
     * Checkpoint and savepoint ids from here on are this job's own; older ones in the directory are
     * an earlier run's, which a restart must not restore in place of {@link #startedFrom}.
     */
    private long firstOwnId;

    private volatile int restarts;
    private volatile long checkpointsCompleted;
    private final RuntimeMetrics metrics;
    private Thread driver;

    private LocalJob(JobGraph graph, JobSettings settings) {
        this.graph = graph;
        this.settings = settings;
        this.name = settings.runtime().jobName();
        this.metrics =
                new RuntimeMetrics(
                        name, () -> restarts, () -> checkpointsCompleted, this::lastCheckpoint);
    }

    /** Plans {@code nodes}, restores what {@code settings} says, starts the job. */
    public static JobHandle start(List<Node> nodes, JobSettings settings) {
        LocalJob job;
        try {
            JobGraph graph = JobGraph.plan(nodes, settings.runtime().defaultParallelism());
            job = new LocalJob(graph, settings);
            RestoredCheckpoint initial = job.initialRestore();
            job.startedFrom = initial == null ? null : initial.path();
            job.firstOwnId =
                    settings.store() == null
                            ? Long.MAX_VALUE
                            : Math.max(
                                    settings.store().nextCheckpointId(),
                                    initial == null ? 1 : initial.id() + 1);
            job.execution = job.newExecution(initial);
        } catch (RuntimeException | Error e) {
            if (settings.store() != null) {
                settings.store().close(); // the job never started: release its directory
            }
            throw e;
        }
        Thread driver = new Thread(job::drive, "weir-" + job.name + "-driver");
        driver.setDaemon(true);
        job.driver = driver;
        driver.start();
        return job;
    }

    private RestoredCheckpoint initialRestore() {
        if (settings.fromSavepoint() != null) {
            return load(settings.fromSavepoint());
        }
        String resume = settings.checkpoints().resume();
        if (settings.store() == null || resume.equals("none")) {
            return null;
        }
        if (resume.equals("latest")) {
            RestoredCheckpoint latest = latest();
            if (latest != null && !latest.manifest().jobName().equals(name)) {
                throw new IllegalStateException(
                        "checkpoint directory "
                                + settings.store().directory()
                                + " holds checkpoints of job '"
                                + latest.manifest().jobName()
                                + "', not of '"
                                + name
                                + "'; give each job its own checkpoint directory, or restore that"
                                + " checkpoint on purpose with Pipeline.fromSavepoint("
                                + latest.path()
                                + ")");
            }
            return latest;
        }
        return load(Path.of(resume));
    }

    private void closeStore() {
        if (settings.store() != null) {
            settings.store().close();
        }
    }

    private RestoredCheckpoint latest() {
        return latest(0);
    }

    /** The newest complete checkpoint or savepoint with an id of at least {@code minId}. */
    private RestoredCheckpoint latest(long minId) {
        if (settings.store() == null) {
            return null;
        }
        Optional<Path> latest = settings.store().latestComplete(minId);
        if (latest.isEmpty()) {
            return null;
        }
        RestoredCheckpoint inMemory =
                settings.localState() == null ? null : settings.localState().inMemory(latest.get());
        if (inMemory != null) {
            LOG.info(
                    "job {} restores checkpoint {} ({}) from memory (local recovery)",
                    name,
                    inMemory.id(),
                    latest.get());
            settings.listener().onRestore(inMemory.id(), latest.get());
            return inMemory;
        }
        return load(latest.get());
    }

    private RestoredCheckpoint load(Path path) {
        CheckpointStore.refuseWrongRestorePath(path);
        RestoredCheckpoint restored = RestoredCheckpoint.load(path);
        LOG.info("job {} restores checkpoint {} from {}", name, restored.id(), path);
        settings.listener().onRestore(restored.id(), path);
        return restored;
    }

    private Execution newExecution(RestoredCheckpoint restored) {
        return new Execution(
                graph, settings, restored, freshBaseline(), this::recordStats, metrics);
    }

    /**
     * What sinks are told when an attempt restores nothing: -1 if the job started fresh by request
     * (no checkpointing, resume "none"), so output of earlier runs is the user's business; else 0,
     * so a sink that finds output it committed refuses (its checkpoint is gone). A restart before
     * the first checkpoint keeps the first attempt's answer: that attempt committed nothing.
     */
    private long freshBaseline() {
        return settings.store() == null
                        || (settings.fromSavepoint() == null
                                && settings.checkpoints().resume().equals("none"))
                ? -1
                : 0;
    }

    private void recordStats(CheckpointStats checkpoint) {
        synchronized (stats) {
            stats.addLast(checkpoint);
            checkpointsCompleted++;
            if (stats.size() > STATS_KEPT) {
                stats.removeFirst();
            }
        }
    }

    private void drive() {
        long startNanos = System.nanoTime();
        RestartPolicy policy = new RestartPolicy(settings.restartStrategy(), settings.seed());
        try {
            while (true) {
                Execution current = execution;
                current.start();
                Throwable failure = current.awaitTermination();
                if (current.isCancelled()) {
                    if (stopSavepoint != null) {
                        succeed(finished(startNanos));
                    } else {
                        failWith(new CancellationException("job '" + name + "' was cancelled"));
                    }
                    return;
                }
                if (failure == null) {
                    succeed(finished(startNanos));
                    return;
                }
                long delay =
                        UnrecoverableException.isUnrecoverable(failure)
                                ? -1
                                : policy.onFailure(System.nanoTime());
                settings.listener().onFailure(failure, policy.attempts(), delay >= 0);
                if (delay < 0) {
                    failWith(new JobFailedException(name, failure));
                    return;
                }
                LOG.warn(
                        "job {} failed ({}); restart {} in {} ms",
                        name,
                        failure,
                        policy.attempts(),
                        delay / 1_000_000);
                if (cancelled.await(delay, TimeUnit.NANOSECONDS)) {
                    failWith(new CancellationException("job '" + name + "' was cancelled"));
                    return;
                }
                restarts = policy.attempts();
                // The newest state this job wrote; before its first, what its first attempt
                // restored (nothing for a fresh start), not what an earlier run left there.
                RestoredCheckpoint restored = latest(firstOwnId);
                if (restored == null && startedFrom != null) {
                    restored = load(startedFrom);
                }
                execution = newExecution(restored);
                if (cancelled.getCount() == 0) {
                    execution.cancel();
                }
            }
        } catch (Throwable t) {
            failWith(new JobFailedException(name, t));
        }
    }

    /** Ends the job: the checkpoint directory is released before anyone hears of the end. */
    private void succeed(JobResult done) {
        closeStore();
        result.complete(done);
    }

    private void failWith(Throwable failure) {
        try {
            closeStore();
        } finally {
            result.completeExceptionally(failure);
        }
    }

    private JobResult finished(long startNanos) {
        // A stop whose savepoint completed while the input ended: the job ended on its own, but
        // the stop succeeded and its savepoint is the state to resume from.
        Path savepoint = stopSavepoint != null ? stopSavepoint : execution.stopSavepoint();
        return new JobResult(
                name, Duration.ofNanos(System.nanoTime() - startNanos), restarts, savepoint);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public JobResult await() throws InterruptedException {
        try {
            JobResult done = result.get();
            joinThreads();
            return done;
        } catch (ExecutionException e) {
            joinThreads();
            throw rethrow(e);
        } catch (CancellationException e) {
            // get() throws a cancellation as itself, not wrapped: the driver may still be exiting
            joinThreads();
            throw e;
        }
    }

    @Override
    public JobResult await(Duration timeout) throws InterruptedException, TimeoutException {
        try {
            JobResult done = result.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
            joinThreads();
            return done;
        } catch (ExecutionException e) {
            joinThreads();
            throw rethrow(e);
        } catch (CancellationException e) {
            joinThreads();
            throw e;
        }
    }

    /**
     * Waits for the driver and for a stop-with-savepoint's thread (which completes the stop's
     * future, running the caller's dependent actions on it), so that no thread of the job outlives
     * {@code await}; not for the stop thread from that thread itself (a dependent action that
     * awaits the job).
     */
    private void joinThreads() throws InterruptedException {
        driver.join();
        Thread stop = stopThread;
        if (stop != null && stop != Thread.currentThread()) {
            stop.join();
        }
    }

    private RuntimeException rethrow(ExecutionException e) {
        Throwable cause = e.getCause();
        if (cause instanceof RuntimeException runtime) {
            return runtime;
        }
        return new JobFailedException(name, cause);
    }

    @Override
    public void cancel() {
        cancelled.countDown();
        execution.cancel();
    }

    @Override
    public boolean isDone() {
        return result.isDone();
    }

    @Override
    public CompletableFuture<CheckpointStats> triggerCheckpoint() {
        CompletableFuture<CheckpointStats> ended = notRunning("a checkpoint");
        return ended != null ? ended : execution.triggerCheckpoint(null);
    }

    @Override
    public CompletableFuture<CheckpointStats> triggerSavepoint(Path directory) {
        CompletableFuture<CheckpointStats> ended = notRunning("a savepoint");
        return ended != null ? ended : execution.triggerCheckpoint(directory);
    }

    /**
     * A failed future that says why a savepoint cannot be taken if the job has ended (finished,
     * failed or been cancelled), and what to use instead; null while it runs. The coordinator of an
     * ended job would only say that it is not running.
     */
    private CompletableFuture<CheckpointStats> notRunning(String what) {
        if (!result.isDone()) {
            return null;
        }
        JobResult done = result.isCompletedExceptionally() ? null : result.getNow(null);
        CheckpointStats last;
        synchronized (stats) {
            last = stats.peekLast();
        }
        String why;
        String instead;
        if (done != null && done.stoppedWithSavepoint().isPresent()) {
            why = "it was stopped with savepoint " + done.stoppedWithSavepoint().get();
            instead =
                    " Its sinks committed that savepoint's output: start the pipeline again with"
                            + " checkpointing on the same directory to resume from it (resume"
                            + " \"latest\", the default), or pass it to Pipeline.fromSavepoint("
                            + done.stoppedWithSavepoint().get()
                            + ").";
        } else {
            if (cancelled.getCount() == 0) {
                why = "it was cancelled";
            } else if (done != null) {
                why = "it has finished: its input ended";
            } else {
                why = "it has failed (see await())";
            }
            instead =
                    last == null
                            ? " It completed no checkpoint, so it kept no state to start from."
                            : " Its last completed checkpoint is "
                                    + last.id()
                                    + (done != null
                                            ? ", taken at its end"
                                            : " (a new run reads again what came after it)")
                                    + ": start the pipeline again with checkpointing on the same"
                                    + " directory to resume from it, or pass "
                                    + last.path()
                                    + " to Pipeline.fromSavepoint.";
        }
        return CompletableFuture.failedFuture(
                new IllegalStateException(
                        "job '" + name + "' cannot take " + what + ": " + why + "." + instead));
    }

    @Override
    public CompletableFuture<CheckpointStats> stopWithSavepoint(Path directory) {
        CompletableFuture<CheckpointStats> ended = notRunning("a stop-with-savepoint");
        if (ended != null) {
            return ended;
        }
        Execution current = execution;
        return current.triggerLastSavepoint(directory)
                .thenApplyAsync(
                        savepoint -> {
                            // Stop only once every sink committed the savepoint's output (no
                            // checkpoint follows it, so nothing past it is committed): a
                            // stopped job's output is visible, not left pre-committed until a
                            // restore.
                            if (!current.awaitNotified(savepoint.id(), STOP_COMMIT_WAIT_NANOS)) {
                                LOG.warn(
                                        "job {}: stopping although not every task committed"
                                                + " savepoint {} within {} s; a restore from it"
                                                + " commits the rest",
                                        name,
                                        savepoint.id(),
                                        STOP_COMMIT_WAIT_NANOS / 1_000_000_000L);
                            }
                            stopSavepoint = savepoint.path();
                            cancelled.countDown();
                            current.cancel();
                            return savepoint;
                        },
                        work -> {
                            Thread thread = new Thread(work, "weir-" + name + "-stop");
                            thread.setDaemon(true);
                            stopThread = thread;
                            thread.start();
                        });
    }

    /** The thread of the last stop-with-savepoint, or null: {@link #await} joins it. */
    private volatile Thread stopThread;

    /** How long a stop-with-savepoint waits for the sinks to commit the savepoint. */
    private static final long STOP_COMMIT_WAIT_NANOS = 60_000_000_000L;

    @Override
    public List<CheckpointStats> checkpointStats() {
        synchronized (stats) {
            return new ArrayList<>(stats);
        }
    }

    @Override
    public int restarts() {
        return restarts;
    }

    @Override
    public JobMetrics metrics() {
        return metrics;
    }

    private CheckpointStats lastCheckpoint() {
        synchronized (stats) {
            return stats.peekLast();
        }
    }
}
