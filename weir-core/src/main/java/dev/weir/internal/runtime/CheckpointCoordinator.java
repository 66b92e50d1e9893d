package dev.weir.internal.runtime;

import dev.weir.api.JobListener;
import dev.weir.api.checkpoint.CheckpointConfig;
import dev.weir.api.checkpoint.CheckpointStats;
import dev.weir.api.checkpoint.CheckpointStats.TaskStats;
import dev.weir.internal.checkpoint.CheckpointStorage;
import dev.weir.internal.checkpoint.Manifest;
import dev.weir.internal.checkpoint.RestoredCheckpoint;
import dev.weir.internal.checkpoint.StateFiles;
import dev.weir.internal.checkpoint.TaskSnapshot;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Triggers checkpoints, collects every task's acknowledgement and commits the checkpoint by writing
 * its manifest (the asynchronous barrier snapshot protocol; see docs/design/001-checkpoints.md for
 * the invariants).
 *
 * <h2>Threads</h2>
 *
 * A timer thread triggers periodic checkpoints and times them out. Task state files are serialised,
 * written and fsynced by a few writer threads, a task always on the same one, so that one task's
 * snapshots are written in the order it took them while different tasks' snapshots are serialised
 * side by side (one thread did them one after the other: most of a large state's checkpoint time).
 * One I/O thread writes manifests and deletes aborted checkpoints, so tasks never wait on the disk.
 * Tasks call {@link #snapshotTaken} and {@link #taskFinished} from worker threads. All bookkeeping
 * is guarded by this object's monitor.
 *
 * <p>Completions reach the one I/O thread in the order of the last acknowledgements, handed to it
 * under this object's monitor. That is the order of ids: a task acknowledges checkpoint N before N
 * + 1 (its writer is one thread), so the last acknowledgement of N comes before the last of N + 1.
 * The exception, as with one thread before: a task that gave up aligning N for N + 1 and then
 * finished acknowledges N only with its final snapshot.
 */
final class CheckpointCoordinator {
    private static final Logger LOG = LoggerFactory.getLogger(CheckpointCoordinator.class);

    private final String jobName;
    private final int maxParallelism;
    private final CheckpointConfig config;
    private final CheckpointStorage store;
    private final JobListener listener;
    private final Consumer<CheckpointStats> statsSink;
    private final ScheduledExecutorService timer;
    private final ExecutorService io;

    /** Serialise, write and fsync task state files; task {@code i} on {@code writers[i % n]}. */
    private final ExecutorService[] writers;

    /** Everything on the calling thread (a job driven step by step): {@link DirectExecutor}s. */
    private final boolean synchronousIo;

    /** Writer threads: a few, so that large states are serialised side by side on the cores. */
    static final int WRITERS = 4;

    private final TreeMap<Long, Pending> pending = new TreeMap<>();

    /** Aborted checkpoints a writer is still writing a file of: not to be pruned under it. */
    private final TreeSet<Long> beingWritten = new TreeSet<>();

    private final Map<Integer, byte[]> finalBytes = new ConcurrentHashMap<>();
    private List<Task> tasks = List.of();
    private final AtomicLong nextId;
    private long lastCompletedNanos;
    private long lastTriggeredNanos;
    private boolean stopped;
    private boolean finalTriggered;

    /**
     * A stop-with-savepoint is under way: no checkpoint after the savepoint may start (its commit
     * would put output past the savepoint), periodic or final. Cleared if the savepoint fails.
     */
    private boolean holding;

    /** The savepoint of a stop-with-savepoint, once it completed; null before. */
    private volatile Path stopSavepoint;

    /** Fails the job (a checkpoint failure beyond the tolerable count). */
    private final Consumer<Throwable> failJob;

    /** Checkpoints (not savepoints) that failed since the last one completed. */
    private int consecutiveFailures;

    /** One checkpoint in flight. */
    private static final class Pending {
        final long id;
        final boolean savepoint;
        final Path directory;
        final long triggerMillis;
        final long triggerNanos;
        final TaskStats[] stats;
        final Manifest.FileEntry[] files;

        /** The snapshots the files are written from, kept for local recovery (else null). */
        final TaskSnapshot[] snapshots;

        int remaining;

        /** Task files of it being written now; an abort deletes the directory after them. */
        int writing;

        /** Aborted while files were being written: the last of them deletes the directory. */
        boolean deleteAfterWrites;

        /**
         * Every task acknowledged; its completion waits on the I/O thread. A timeout no longer
         * aborts it: only its own manifest failing, or the job stopping before it ran.
         */
        boolean completing;

        final CompletableFuture<CheckpointStats> future = new CompletableFuture<>();

        Pending(long id, boolean savepoint, Path directory, int taskCount, boolean keepSnapshots) {
            this.id = id;
            this.snapshots = keepSnapshots && !savepoint ? new TaskSnapshot[taskCount] : null;
            this.savepoint = savepoint;
            this.directory = directory;
            this.triggerMillis = System.currentTimeMillis();
            this.triggerNanos = System.nanoTime();
            this.stats = new TaskStats[taskCount];
            this.files = new Manifest.FileEntry[taskCount];
            this.remaining = taskCount;
        }
    }

    /** Local recovery: receives each completed checkpoint's snapshots; null when off. */
    private final LocalStateCache localState;

    CheckpointCoordinator(
            String jobName,
            int maxParallelism,
            CheckpointConfig config,
            CheckpointStorage store,
            JobListener listener,
            Consumer<CheckpointStats> statsSink,
            LocalStateCache localState,
            Consumer<Throwable> failJob,
            boolean synchronousIo,
            long restoredId) {
        this.jobName = jobName;
        this.failJob = failJob;
        this.localState = localState;
        this.maxParallelism = maxParallelism;
        this.config = config;
        this.store = store;
        this.listener = listener;
        this.statsSink = statsSink;
        // Above the restored checkpoint or savepoint too: a savepoint taken into another directory
        // (or by another run) is not among this directory's ids, and its sinks' output already
        // carries its id.
        this.nextId = new AtomicLong(Math.max(store.nextCheckpointId(), restoredId + 1));
        store.retryAborted(); // an earlier attempt's: gone now if there is room, else at our abort
        this.timer =
                Executors.newSingleThreadScheduledExecutor(
                        r -> daemon(r, "weir-" + jobName + "-checkpoint-timer"));
        this.io =
                synchronousIo
                        ? new DirectExecutor()
                        : Executors.newSingleThreadExecutor(
                                r -> daemon(r, "weir-" + jobName + "-snapshot-io"));
        this.synchronousIo = synchronousIo;
        this.writers = new ExecutorService[synchronousIo ? 1 : WRITERS];
        for (int i = 0; i < writers.length; i++) {
            String name = "weir-" + jobName + "-snapshot-writer-" + i;
            writers[i] =
                    synchronousIo ? io : Executors.newSingleThreadExecutor(r -> daemon(r, name));
        }
        this.lastCompletedNanos = System.nanoTime();
        this.lastTriggeredNanos = lastCompletedNanos;
    }

    private static Thread daemon(Runnable runnable, String name) {
        Thread thread = new Thread(runnable, name);
        thread.setDaemon(true);
        return thread;
    }

    synchronized void attach(List<Task> tasks) {
        this.tasks = List.copyOf(tasks);
    }

    /** Starts periodic triggering if an interval is set. */
    void start() {
        long intervalMs = config.interval().toMillis();
        if (intervalMs > 0) {
            // Checked often, so a checkpoint starts within a few ms of being due (a tenth of a
            // 1 s interval was up to 100 ms late, and end-to-end latency of transactional sinks
            // follows the checkpoint period).
            timer.scheduleWithFixedDelay(
                    this::periodicTrigger,
                    intervalMs,
                    Math.max(1, Math.min(5, intervalMs / 10)),
                    TimeUnit.MILLISECONDS);
        }
    }

    private void periodicTrigger() {
        try {
            triggerIfDue();
        } catch (Throwable t) {
            // A scheduled task that throws is never run again: checkpoints would stop silently.
            failJob.accept(t);
        }
    }

    private void triggerIfDue() {
        synchronized (this) {
            // The interval runs from start to start (as in Flink), the minimum pause from the end
            // of the last checkpoint; measured from the end, the period was interval + duration.
            long now = System.nanoTime();
            if (holding
                    || pending.size() >= config.maxConcurrent()
                    || now - lastCompletedNanos < config.minPause().toNanos()
                    || now - lastTriggeredNanos < config.interval().toNanos()) {
                return;
            }
        }
        trigger(null);
    }

    /**
     * Starts a checkpoint (or a savepoint into {@code savepointParent}); the future completes when
     * it is durable, or fails if it is aborted.
     */
    synchronized CompletableFuture<CheckpointStats> trigger(Path savepointParent) {
        if (holding) {
            return CompletableFuture.failedFuture(
                    new IllegalStateException(
                            "job '" + jobName + "' is stopping with a savepoint"));
        }
        if (stopped) {
            return CompletableFuture.failedFuture(
                    new IllegalStateException("job '" + jobName + "' is not running"));
        }
        if (allFinished()) {
            return CompletableFuture.failedFuture(
                    new IllegalStateException(
                            "job '"
                                    + jobName
                                    + "' has read all its input and is finishing: its final"
                                    + " checkpoint commits its output, so there is nothing to"
                                    + " stop or save; await() it, then start it again on its"
                                    + " checkpoint directory to resume from its end"));
        }
        return start(savepointParent);
    }

    /**
     * Starts the savepoint of a stop-with-savepoint: the last checkpoint of this execution. No
     * other checkpoint starts after it unless it fails, so what the sinks commit once it completes
     * is exactly the savepoint's output.
     */
    synchronized CompletableFuture<CheckpointStats> triggerLast(Path savepointParent) {
        CompletableFuture<CheckpointStats> savepoint = trigger(savepointParent);
        if (savepoint.isCompletedExceptionally()) {
            return savepoint;
        }
        holding = true;
        return savepoint.whenComplete(
                (stats, failure) -> {
                    if (failure != null) {
                        release();
                    }
                });
    }

    /**
     * The directory of the savepoint a stop-with-savepoint took, once it completed (the job stops
     * after it, or ends on its own if its input ends first); null if none did.
     */
    Path stopSavepoint() {
        return stopSavepoint;
    }

    private synchronized void release() {
        holding = false;
    }

    /**
     * A checkpoint id no checkpoint will use: for the final transaction of a finished task. Takes
     * no lock: tasks call it holding their finish lock, which {@link #trigger} takes under this
     * object's monitor.
     */
    long reserveCheckpointId() {
        return nextId.getAndIncrement();
    }

    private CompletableFuture<CheckpointStats> start(Path savepointParent) {
        lastTriggeredNanos = System.nanoTime();
        long id = nextId.getAndIncrement();
        boolean savepoint = savepointParent != null;
        Path directory;
        try {
            directory = store.begin(id, savepointParent);
        } catch (IOException | RuntimeException e) {
            // A failed checkpoint like any other: counted against tolerableFailures, and the
            // final one tried again. Returned quietly, it stopped checkpoints for good: an
            // unwritable checkpoint directory left a job waiting forever, committing nothing.
            Pending failed = new Pending(id, savepoint, null, tasks.size(), false);
            pending.put(id, failed);
            String reason = "creating its directory failed: " + e;
            try {
                timer.execute(() -> abort(id, reason, e)); // not under this lock
            } catch (RejectedExecutionException stopping) {
                abort(id, reason, e);
            }
            return failed.future;
        }
        Pending checkpoint =
                new Pending(id, savepoint, directory, tasks.size(), localState != null);
        pending.put(id, checkpoint);
        long timeoutMs = config.timeout().toMillis();
        timer.schedule(
                () -> abort(id, "it did not complete within " + timeoutMs + " ms", null),
                timeoutMs,
                TimeUnit.MILLISECONDS);
        ControlEvent.Barrier barrier = new ControlEvent.Barrier(id, savepoint);
        for (Task task : tasks) {
            if (task.finalSnapshot() != null) {
                submitFinal(checkpoint, task);
            } else if (task.isSource() && !task.offerBarrier(barrier)) {
                submitFinal(checkpoint, task);
            }
        }
        LOG.debug("triggered checkpoint {} of {}", id, jobName);
        return checkpoint.future;
    }

    private boolean allFinished() {
        for (Task task : tasks) {
            if (task.finalSnapshot() == null) {
                return false;
            }
        }
        return !tasks.isEmpty();
    }

    /** The writer of {@code task}'s state files: always the same one. */
    private ExecutorService writerOf(Task task) {
        return writers[task.index() % writers.length];
    }

    /** A task captured its state at Barrier(id); write it off the task's thread. */
    void snapshotTaken(
            long id, Task task, TaskSnapshot snapshot, long alignmentNanos, long syncNanos) {
        write(
                id,
                task,
                snapshot,
                "state",
                () -> StateFiles.serialize(snapshot),
                alignmentNanos,
                syncNanos);
    }

    /**
     * On {@code task}'s writer: serialises its snapshot with {@code serialise} (a failure aborts
     * the checkpoint, naming the task's {@code what}), then writes and acknowledges it.
     */
    private void write(
            long id,
            Task task,
            TaskSnapshot snapshot,
            String what,
            Supplier<byte[]> serialise,
            long alignmentNanos,
            long syncNanos) {
        writerOf(task)
                .execute(
                        () -> {
                            byte[] bytes;
                            long start = System.nanoTime();
                            try {
                                bytes = serialise.get();
                            } catch (RuntimeException | Error e) {
                                // A codec failed, or the job failed and abandoned this checkpoint.
                                abort(
                                        id,
                                        "serialising the "
                                                + what
                                                + " of "
                                                + task.name()
                                                + " failed: "
                                                + e,
                                        e);
                                failOnError(e);
                                return;
                            }
                            writeAndAcknowledge(
                                    id, task, snapshot, bytes, alignmentNanos, syncNanos, start);
                        });
    }

    /** A task finished its input; it acknowledges every pending and future checkpoint as final. */
    synchronized void taskFinished(Task task) {
        for (Pending checkpoint : pending.values()) {
            if (checkpoint.stats[task.index()] == null) {
                submitFinal(checkpoint, task);
            }
        }
        if (allFinished() && !finalTriggered && !stopped && !holding) {
            // The final checkpoint: it holds every task's final snapshot, so sinks may commit
            // the last data once it is durable, and a later failure cannot replay that data.
            finalTriggered = true;
            start(null);
        }
    }

    private void submitFinal(Pending checkpoint, Task task) {
        write(
                checkpoint.id,
                task,
                task.finalSnapshot(),
                "final state",
                () -> {
                    // Not computeIfAbsent: that would serialise under a lock of the map that
                    // other writers' keys can need. One writer per task, so no two serialise the
                    // same snapshot.
                    byte[] bytes = finalBytes.get(task.index());
                    if (bytes == null) {
                        bytes = StateFiles.serialize(task.finalSnapshot());
                        finalBytes.put(task.index(), bytes);
                    }
                    return bytes;
                },
                0,
                0);
    }

    /** An Error (out of memory, say) on a writer fails the job rather than the thread. */
    private void failOnError(Throwable t) {
        if (t instanceof Error) {
            failJob.accept(t);
        }
    }

    /**
     * Runs on the task's writer thread; {@code asyncStart} is when it began serialising the
     * snapshot. The checkpoint's completion, when this was its last task, goes to the I/O thread.
     */
    private void writeAndAcknowledge(
            long id,
            Task task,
            TaskSnapshot snapshot,
            byte[] bytes,
            long alignmentNanos,
            long syncNanos,
            long asyncStart) {
        Pending writing;
        synchronized (this) {
            writing = pending.get(id);
            if (writing == null
                    || writing.directory == null // its directory could not be created
                    || writing.stats[task.index()] != null) {
                return;
            }
            writing.writing++;
        }
        Manifest.FileEntry file;
        try {
            file = store.writeTaskState(writing.directory, task.name(), bytes);
        } catch (IOException | RuntimeException e) {
            written(writing);
            abort(id, "writing the state of " + task.name() + " failed: " + e, e);
            return;
        } catch (Error e) {
            written(writing);
            throw e;
        }
        if (!written(writing)) {
            return; // aborted meanwhile
        }
        TaskStats stats =
                new TaskStats(
                        task.name(),
                        alignmentNanos,
                        syncNanos,
                        System.nanoTime() - asyncStart,
                        bytes.length);
        Pending complete = null;
        synchronized (this) {
            Pending checkpoint = pending.get(id);
            if (checkpoint == null || checkpoint.stats[task.index()] != null) {
                return;
            }
            checkpoint.stats[task.index()] = stats;
            checkpoint.files[task.index()] = file;
            if (checkpoint.snapshots != null) {
                // Exactly the snapshot this file holds (a task that finishes meanwhile offers a
                // final snapshot too; the first written is the one acknowledged).
                checkpoint.snapshots[task.index()] = snapshot;
            }
            if (--checkpoint.remaining == 0) {
                checkpoint.completing = true;
                if (synchronousIo) {
                    complete = checkpoint; // one thread: completed below, off the monitor
                } else {
                    // Under the monitor, so completions reach the I/O thread in id order.
                    try {
                        io.execute(() -> complete(checkpoint));
                    } catch (RejectedExecutionException e) {
                        // Stopping: stop() aborts what is still pending.
                    }
                }
            }
        }
        if (complete != null) {
            complete(complete);
        }
    }

    /**
     * A task file of {@code checkpoint} is written (or failed); true if the checkpoint is still
     * pending. The last write of a checkpoint aborted meanwhile has its directory deleted.
     */
    private boolean written(Pending checkpoint) {
        boolean delete;
        synchronized (this) {
            checkpoint.writing--;
            if (pending.get(checkpoint.id) == checkpoint) {
                return true;
            }
            delete = checkpoint.writing == 0 && checkpoint.deleteAfterWrites;
            if (delete) {
                checkpoint.deleteAfterWrites = false;
                beingWritten.remove(checkpoint.id);
            }
        }
        if (delete) {
            deleteAborted(checkpoint);
        }
        return false;
    }

    /** Runs on the I/O thread once every task acknowledged. */
    private void complete(Pending checkpoint) {
        Manifest manifest =
                new Manifest(
                        checkpoint.id,
                        checkpoint.savepoint,
                        jobName,
                        maxParallelism,
                        checkpoint.triggerMillis,
                        List.of(checkpoint.files));
        try {
            store.commit(checkpoint.directory, manifest);
        } catch (IOException | RuntimeException e) {
            abort(checkpoint.id, "writing its manifest failed: " + e, e, true);
            return;
        }
        long size = 0;
        long maxAlignment = 0;
        for (TaskStats stats : checkpoint.stats) {
            size += stats.bytes();
            maxAlignment = Math.max(maxAlignment, stats.alignmentNanos());
        }
        CheckpointStats stats =
                new CheckpointStats(
                        checkpoint.id,
                        checkpoint.savepoint,
                        checkpoint.triggerMillis,
                        (System.nanoTime() - checkpoint.triggerNanos) / 1_000_000,
                        size,
                        maxAlignment,
                        checkpoint.directory,
                        List.of(checkpoint.stats));
        long oldestInFlight;
        synchronized (this) {
            pending.remove(checkpoint.id);
            if (checkpoint.savepoint && holding) {
                stopSavepoint = checkpoint.directory; // before any task can hear of it and end
            }
            lastCompletedNanos = System.nanoTime();
            if (!checkpoint.savepoint) {
                consecutiveFailures = 0;
            }
            oldestInFlight = pending.isEmpty() ? Long.MAX_VALUE : pending.firstKey();
            if (!beingWritten.isEmpty()) {
                oldestInFlight = Math.min(oldestInFlight, beingWritten.first());
            }
        }
        if (!checkpoint.savepoint) {
            store.prune(oldestInFlight);
        }
        statsSink.accept(stats);
        if (checkpoint.snapshots != null && !Arrays.asList(checkpoint.snapshots).contains(null)) {
            localState.completed(
                    RestoredCheckpoint.fromSnapshots(
                            checkpoint.directory, manifest, List.of(checkpoint.snapshots)));
        }
        for (Task task : tasks) {
            task.checkpointComplete(checkpoint.id);
        }
        try {
            listener.onCheckpointComplete(stats);
        } catch (RuntimeException e) {
            LOG.warn("job listener failed on checkpoint {}", checkpoint.id, e);
        }
        checkpoint.future.complete(stats);
    }

    /**
     * Aborts checkpoint {@code id} for {@code reason} ({@code cause} where an exception said it):
     * its directory is deleted, its future fails, and a checkpoint failure beyond {@link
     * CheckpointConfig#tolerableFailures()} in a row fails the job with it.
     */
    private void abort(long id, String reason, Throwable cause) {
        abort(id, reason, cause, false);
    }

    /**
     * As above; a checkpoint every task acknowledged (its completion queued on the I/O thread) is
     * aborted only if {@code evenIfAcknowledged}: by its manifest failing, or by the job stopping.
     * A timeout then would fail a checkpoint whose manifest is about to be written, and delete a
     * savepoint whose output the sinks are about to commit.
     */
    private void abort(long id, String reason, Throwable cause, boolean evenIfAcknowledged) {
        Pending checkpoint;
        boolean failTheJob = false;
        int failures;
        boolean deleteNow;
        synchronized (this) {
            checkpoint = pending.get(id);
            if (checkpoint == null || (checkpoint.completing && !evenIfAcknowledged)) {
                return;
            }
            pending.remove(id);
            // A writer still writing a file of it deletes the directory once done (written()).
            deleteNow = checkpoint.writing == 0;
            checkpoint.deleteAfterWrites = !deleteNow;
            if (!deleteNow) {
                beingWritten.add(checkpoint.id); // kept from pruning too, until written()
            }
            if (!stopped && !checkpoint.savepoint) {
                failures = ++consecutiveFailures;
                failTheJob = failures > config.tolerableFailures();
            } else {
                failures = consecutiveFailures;
            }
        }
        if (stopped) {
            LOG.debug("checkpoint {} of job {} aborted: {}", id, jobName, reason);
        } else {
            LOG.warn("checkpoint {} of job {} aborted: {}", id, jobName, reason);
        }
        if (checkpoint.directory != null && deleteNow) {
            deleteAborted(checkpoint);
        }
        IllegalStateException failure =
                new IllegalStateException(
                        (checkpoint.savepoint ? "savepoint " : "checkpoint ")
                                + id
                                + " aborted: "
                                + (checkpoint.savepoint && stopped
                                        ? "the job stopped (it was cancelled, failed or ended)"
                                                + " before the savepoint completed; nothing was"
                                                + " kept of it"
                                        : reason),
                        cause);
        checkpoint.future.completeExceptionally(failure);
        if (!failTheJob && !checkpoint.savepoint) {
            retryFinalLater();
        }
        if (failTheJob) {
            failJob.accept(
                    new dev.weir.api.checkpoint.CheckpointFailedException(
                            "job '"
                                    + jobName
                                    + "': "
                                    + failures
                                    + " checkpoints failed in a row, more than the "
                                    + config.tolerableFailures()
                                    + " CheckpointConfig.tolerableFailures allows; the last one"
                                    + " because "
                                    + reason
                                    + ". Without checkpoints nothing the job does is durable and"
                                    + " exactly-once sinks commit nothing, so it stops here. Fix"
                                    + " the cause, or raise CheckpointConfig.withTolerableFailures"
                                    + " or withTimeout",
                            failure));
        }
    }

    /**
     * After a failed checkpoint of a job whose tasks all finished: nothing else would trigger one
     * (periodic triggering stops at the end of input), and the sinks wait for a final checkpoint to
     * commit their last data, so the job would wait forever. Tries again shortly, until one
     * completes or {@link CheckpointConfig#tolerableFailures()} fails the job.
     */
    private void retryFinalLater() {
        synchronized (this) {
            if (stopped || !allFinished()) {
                return;
            }
        }
        long delayMs = Math.max(100, config.minPause().toMillis());
        try {
            timer.schedule(this::retryFinal, delayMs, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            // Stopping.
        }
    }

    private synchronized void retryFinal() {
        if (stopped || holding || !pending.isEmpty() || !allFinished()) {
            return;
        }
        LOG.info("job {}: trying its final checkpoint again", jobName);
        start(null);
    }

    /**
     * Removes an aborted checkpoint's directory on the I/O thread, once no writer is writing a file
     * of it (later writes of it find it gone from {@code pending} and write nothing). The store
     * keeps its id as a high-water mark, so ids keep growing across restarts.
     */
    private void deleteAborted(Pending checkpoint) {
        toDelete.add(checkpoint);
        try {
            io.execute(this::deleteAbortedDirectories);
        } catch (RejectedExecutionException e) {
            // Stopping: stop() deletes what is left once the I/O thread has ended.
        }
    }

    /** Aborted checkpoints whose directories are still to be deleted. */
    private final java.util.concurrent.ConcurrentLinkedQueue<Pending> toDelete =
            new java.util.concurrent.ConcurrentLinkedQueue<>();

    private void deleteAbortedDirectories() {
        Pending checkpoint;
        while ((checkpoint = toDelete.poll()) != null) {
            try {
                store.abort(checkpoint.directory, checkpoint.id, checkpoint.savepoint);
            } catch (IOException | RuntimeException e) {
                if (Thread.currentThread().isInterrupted()) {
                    toDelete.add(checkpoint); // the job is stopping: stop() finishes the job
                    return;
                }
                LOG.warn(
                        "could not delete aborted checkpoint {}: {}",
                        checkpoint.directory,
                        e.toString());
            }
        }
        // Those whose deletion failed before (a full disk): a newer directory may now keep their
        // ids from reuse, so they can go without the record.
        store.retryAborted();
    }

    /** Stops triggering, lets in-flight writes end, and aborts what is still pending. */
    void stop(boolean abandon) throws InterruptedException {
        synchronized (this) {
            stopped = true;
        }
        timer.shutdownNow();
        // Writers first: they hand completions to the I/O thread.
        for (ExecutorService writer : writers) {
            if (abandon) {
                // Interrupts a snapshot write; its checkpoint stays incomplete.
                writer.shutdownNow();
            } else {
                writer.shutdown();
            }
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60); // for all of them
        for (ExecutorService writer : writers) {
            if (!writer.awaitTermination(
                    Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                writer.shutdownNow();
            }
        }
        if (abandon) {
            io.shutdownNow();
        } else {
            io.shutdown();
        }
        if (!io.awaitTermination(60, TimeUnit.SECONDS)) {
            io.shutdownNow();
        }
        timer.awaitTermination(10, TimeUnit.SECONDS);
        List<Long> ids;
        synchronized (this) {
            ids = new ArrayList<>(pending.keySet());
        }
        for (long id : ids) {
            abort(id, "the job stopped", null, true);
        }
        deleteAbortedDirectories(); // the I/O thread has ended: nothing writes them any more
    }
}
