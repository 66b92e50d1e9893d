package dev.weir.internal.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.api.Pipeline;
import dev.weir.api.RestartStrategy;
import dev.weir.api.checkpoint.CheckpointConfig;
import dev.weir.api.checkpoint.CheckpointStats;
import dev.weir.api.codec.Codecs;
import dev.weir.api.plan.PipelinePlan;
import dev.weir.api.sink.Sinks;
import dev.weir.api.source.Sources;
import dev.weir.internal.checkpoint.CheckpointStorage;
import dev.weir.internal.checkpoint.CheckpointStore;
import dev.weir.internal.checkpoint.Manifest;
import dev.weir.internal.graph.JobGraph;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Task state files are written by several writer threads, a task always on the same one. These
 * tests hold one task's write of checkpoint 1 and check what must still hold: checkpoints complete
 * in the order of their ids, and a checkpoint aborted while a file of it is being written has its
 * directory deleted once the write ends, not while it runs.
 */
class CheckpointWritersTest {
    @TempDir Path dir;

    /** A real store whose first task's write of one checkpoint waits until released. */
    static final class GatedStorage implements CheckpointStorage {
        final CheckpointStore delegate;
        final Map<Path, Long> ids = new ConcurrentHashMap<>();
        final Map<Long, AtomicInteger> writes = new ConcurrentHashMap<>();
        final List<Long> commits = Collections.synchronizedList(new ArrayList<>());
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final long gatedId;
        volatile String gatedTask;

        /** The commit (manifest) of this checkpoint waits until released; 0: none does. */
        volatile long gatedCommit;

        final CountDownLatch commitEntered = new CountDownLatch(1);
        final CountDownLatch commitRelease = new CountDownLatch(1);

        GatedStorage(CheckpointStore delegate, long gatedId) {
            this.delegate = delegate;
            this.gatedId = gatedId;
        }

        @Override
        public long nextCheckpointId() {
            return delegate.nextCheckpointId();
        }

        @Override
        public Path begin(long id, Path savepointParent) throws IOException {
            Path path = delegate.begin(id, savepointParent);
            ids.put(path, id);
            return path;
        }

        @Override
        public Manifest.FileEntry writeTaskState(Path checkpoint, String taskName, byte[] bytes)
                throws IOException {
            long id = ids.get(checkpoint);
            if (id == gatedId && taskName.equals(gatedTask)) {
                entered.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    throw new java.io.InterruptedIOException();
                }
            }
            Manifest.FileEntry entry = delegate.writeTaskState(checkpoint, taskName, bytes);
            writes.computeIfAbsent(id, i -> new AtomicInteger()).incrementAndGet();
            return entry;
        }

        @Override
        public void commit(Path checkpoint, Manifest manifest) throws IOException {
            if (manifest.checkpointId() == gatedCommit) {
                commitEntered.countDown();
                try {
                    commitRelease.await();
                } catch (InterruptedException e) {
                    throw new java.io.InterruptedIOException();
                }
            }
            delegate.commit(checkpoint, manifest);
            commits.add(manifest.checkpointId());
        }

        @Override
        public void abort(Path checkpoint, long id, boolean savepoint) throws IOException {
            delegate.abort(checkpoint, id, savepoint);
        }

        @Override
        public Optional<Path> latestComplete(long minId) {
            return delegate.latestComplete(minId);
        }

        @Override
        public void prune(long oldestInFlight) {
            delegate.prune(oldestInFlight);
        }

        @Override
        public Path directory() {
            return delegate.directory();
        }

        @Override
        public String instanceId() {
            return delegate.instanceId();
        }

        @Override
        public void close() {
            delegate.close();
        }

        int writesOf(long id) {
            AtomicInteger count = writes.get(id);
            return count == null ? 0 : count.get();
        }
    }

    private static PipelinePlan plan(Path checkpoints, Duration timeout) {
        Pipeline pipeline =
                Pipeline.create("writers")
                        .parallelism(2)
                        .batchSize(4)
                        .checkpointing(
                                CheckpointConfig.exactlyOnce(Duration.ZERO, checkpoints)
                                        .withTimeout(timeout)
                                        .withMaxConcurrent(2))
                        .restartStrategy(RestartStrategy.none());
        pipeline.source("numbers", Sources.sequence(1, 1_000_000, 2, 0))
                .keyBy(n -> n % 2 == 0 ? "even" : "odd")
                .reduce("sum", Long::sum, Codecs.LONG)
                .sink("out", Sinks.counting());
        return pipeline.plan();
    }

    /** Steps every task once, on this thread; the writers run on their own. */
    private static void stepAll(Execution execution) throws Exception {
        for (Task task : execution.tasks()) {
            if (!task.isDone()) {
                task.doWork();
            }
        }
    }

    /** An execution of {@code plan} on {@code store}, its checkpoint I/O on its own threads. */
    private static Execution start(PipelinePlan plan, GatedStorage store) {
        return new Execution(
                JobGraph.plan(LocalRunner.nodes(plan), 2),
                DeterministicSimulationTest.settings(plan, store, RuntimeClock.SYSTEM, false),
                null,
                0,
                stats -> {});
    }

    /** Steps the tasks until {@code done} holds; fails after 200,000 rounds. */
    private static void stepUntil(Execution execution, java.util.function.BooleanSupplier done)
            throws Exception {
        for (int round = 0; round < 200_000; round++) {
            if (done.getAsBoolean()) {
                return;
            }
            stepAll(execution);
        }
        throw new AssertionError("condition not reached");
    }

    @Test
    void aLaterCheckpointWaitsForAnEarlierOneHeldByOneTasksWrite() throws Exception {
        Path checkpoints = dir.resolve("chk");
        PipelinePlan plan = plan(checkpoints, Duration.ofMinutes(5));
        try (GatedStorage store = new GatedStorage(new CheckpointStore(checkpoints, 3), 1)) {
            Execution execution = start(plan, store);
            int taskCount = execution.tasks().size();
            assertThat(taskCount)
                    .as("the held task alone on its writer")
                    .isLessThanOrEqualTo(CheckpointCoordinator.WRITERS);
            store.gatedTask = execution.tasks().get(0).name();
            CompletableFuture<CheckpointStats> first = execution.triggerCheckpoint(null);
            stepUntil(execution, () -> store.entered.getCount() == 0);
            stepUntil(execution, () -> store.writesOf(1) == taskCount - 1);
            CompletableFuture<CheckpointStats> second = execution.triggerCheckpoint(null);
            // Every task but the held one writes its file of checkpoint 2; the held task's file
            // of 2 waits behind its file of 1 on its writer.
            stepUntil(execution, () -> store.writesOf(2) == taskCount - 1);
            assertThat(first).isNotDone();
            assertThat(second).isNotDone();
            assertThat(store.commits).isEmpty();

            store.release.countDown();
            assertThat(first.get(30, TimeUnit.SECONDS).id()).isEqualTo(1);
            assertThat(second.get(30, TimeUnit.SECONDS).id()).isEqualTo(2);
            assertThat(store.commits).containsExactly(1L, 2L);
            execution.cancel();
            execution.awaitTermination();
        }
    }

    @Test
    void anAbortDuringAWriteDeletesTheDirectoryAfterTheWrite() throws Exception {
        Path checkpoints = dir.resolve("chk");
        PipelinePlan plan = plan(checkpoints, Duration.ofMillis(300));
        try (GatedStorage store = new GatedStorage(new CheckpointStore(checkpoints, 3), 1)) {
            Execution execution = start(plan, store);
            store.gatedTask = execution.tasks().get(0).name();
            CompletableFuture<CheckpointStats> first = execution.triggerCheckpoint(null);
            stepUntil(execution, () -> store.entered.getCount() == 0);
            Path directory = store.ids.keySet().iterator().next();
            // Timed out while the held write runs: aborted, its directory kept for now.
            try {
                first.get(30, TimeUnit.SECONDS);
                throw new AssertionError("checkpoint 1 completed while a write was held");
            } catch (ExecutionException expected) {
                assertThat(expected.getCause()).hasMessageContaining("did not complete within");
            }
            assertThat(directory).isDirectory();

            store.release.countDown();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (Files.exists(directory) && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertThat(directory).as("deleted once the held write ended").doesNotExist();
            assertThat(store.commits).isEmpty();
            execution.cancel();
            execution.awaitTermination();
        }
    }

    @Test
    void aTimeoutDoesNotAbortACheckpointEveryTaskAcknowledged() throws Exception {
        Path checkpoints = dir.resolve("chk");
        PipelinePlan plan = plan(checkpoints, Duration.ofMillis(100));
        try (GatedStorage store = new GatedStorage(new CheckpointStore(checkpoints, 3), -1)) {
            store.gatedCommit = 1;
            Execution execution = start(plan, store);
            CompletableFuture<CheckpointStats> first = execution.triggerCheckpoint(null);
            // Every task acknowledged; the manifest is held on the I/O thread past the timeout.
            stepUntil(execution, () -> store.commitEntered.getCount() == 0);
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(1); // 10 timeouts
            while (!first.isDone() && System.nanoTime() < until) {
                Thread.onSpinWait();
            }
            assertThat(first).as("not aborted by its timeout while completing").isNotDone();

            store.commitRelease.countDown();
            assertThat(first.get(30, TimeUnit.SECONDS).id()).isEqualTo(1);
            assertThat(store.latestComplete(0)).isPresent();
            execution.cancel();
            execution.awaitTermination();
        }
    }
}
