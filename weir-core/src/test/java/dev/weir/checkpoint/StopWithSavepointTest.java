package dev.weir.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.api.JobHandle;
import dev.weir.api.Pipeline;
import dev.weir.api.checkpoint.CheckpointConfig;
import dev.weir.api.checkpoint.CheckpointStats;
import dev.weir.api.sink.FileSink;
import dev.weir.api.source.Sources;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.io.TempDir;

/**
 * A job stopped with a savepoint has committed the savepoint's output when the stop completes:
 * nothing is left pre-committed for a restore to commit, and no checkpoint after the savepoint
 * committed more; the restore from it then writes each record once.
 */
class StopWithSavepointTest {
    static final long N = 40_000;

    @TempDir Path dir;

    Pipeline job(Path savepoint) {
        Pipeline pipeline =
                Pipeline.create("stop-with-savepoint")
                        .parallelism(2)
                        .checkpointing(
                                CheckpointConfig.exactlyOnce(
                                                Duration.ofMillis(10), dir.resolve("chk"))
                                        .withResume("none"));
        if (savepoint != null) {
            pipeline.fromSavepoint(savepoint);
        }
        pipeline.source("numbers", Sources.sequence(1, N, 4, savepoint == null ? 20_000 : 0))
                .map(n -> Long.toString(n))
                .sink("out", FileSink.<String>to(dir.resolve("out")));
        return pipeline;
    }

    List<String> leftovers(String prefix) throws Exception {
        try (Stream<Path> files = Files.list(dir.resolve("out"))) {
            return files.map(p -> p.getFileName().toString())
                    .filter(name -> name.startsWith(prefix))
                    .toList();
        }
    }

    /** Starts {@link #job} and returns once its sink has committed at least {@code lines}. */
    private JobHandle startUntilCommitted(int lines) throws Exception {
        JobHandle job = job(null).start();
        while (!Files.isDirectory(dir.resolve("out"))
                || FileSink.readCommitted(dir.resolve("out")).size() < lines) {
            if (job.isDone()) {
                job.await();
                throw new AssertionError("the job ended before it was stopped");
            }
            Thread.onSpinWait();
        }
        return job;
    }

    @RepeatedTest(5)
    void theSavepointsOutputIsCommittedWhenTheStopCompletes() throws Exception {
        JobHandle first = startUntilCommitted(1_000);
        CheckpointStats savepoint =
                first.stopWithSavepoint(dir.resolve("sp")).get(60, TimeUnit.SECONDS);
        first.await(Duration.ofSeconds(60));

        assertThat(leftovers(".pending-")).as("pre-committed files left").isEmpty();
        List<String> committed = FileSink.readCommitted(dir.resolve("out"));
        assertThat(committed).doesNotHaveDuplicates();
        assertThat(committed.size()).isLessThan((int) N); // stopped mid-run

        // The directory given to stopWithSavepoint is not itself a savepoint: the refusal names
        // the one inside it.
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> job(dir.resolve("sp")).run())
                .hasStackTraceContaining("is the directory savepoints were written into")
                .hasStackTraceContaining(savepoint.path().getFileName().toString());

        job(savepoint.path()).run();
        List<String> all = FileSink.readCommitted(dir.resolve("out"));
        assertThat(all).hasSize((int) N);
        assertThat(new HashSet<>(all)).hasSize((int) N);
        assertThat(leftovers(".")).isEmpty();
    }

    static final java.util.concurrent.atomic.AtomicLong SLOW_SEEN =
            new java.util.concurrent.atomic.AtomicLong();

    /**
     * A slow function chained into the source (10 ms a record) does not hold a stop back for a
     * whole batch: polls shrink after a slow one, so the savepoint's barrier passes after a few
     * records, from the first poll on (polls start at one record). Counted in records, not time:
     * with polls of a fixed size, the stop waits for up to 1,024 records.
     */
    @org.junit.jupiter.api.Test
    void aSlowFunctionInTheSourcesChainLetsTheStopThroughAfterAFewRecords() throws Exception {
        SLOW_SEEN.set(0);
        Pipeline pipeline =
                Pipeline.create("slow-chain")
                        .parallelism(1)
                        .checkpointing(
                                CheckpointConfig.exactlyOnce(
                                                Duration.ofHours(1), dir.resolve("chk2"))
                                        .withResume("none"));
        pipeline.source("numbers", Sources.sequence(1, 100_000, 1, 0))
                .map(
                        n -> {
                            SLOW_SEEN.incrementAndGet();
                            Thread.sleep(10);
                            return Long.toString(n);
                        })
                .sink("out", FileSink.<String>to(dir.resolve("slow-out")));
        JobHandle job = pipeline.start();
        while (SLOW_SEEN.get() < 3) { // early: the first polls are small too
            if (job.isDone()) {
                job.await();
                throw new AssertionError("the job ended before it was stopped");
            }
            Thread.onSpinWait();
        }
        long before = SLOW_SEEN.get();
        job.stopWithSavepoint(dir.resolve("sp2")).get(120, TimeUnit.SECONDS);
        job.await(Duration.ofSeconds(120));
        assertThat(SLOW_SEEN.get() - before).as("records the stop waited for").isLessThan(16);
        assertThat(FileSink.readCommitted(dir.resolve("slow-out")))
                .hasSizeLessThanOrEqualTo((int) SLOW_SEEN.get())
                .isNotEmpty();
    }

    /**
     * Runs 100 numbers into a FileSink to their end, checkpointing every 10 ms into {@code chk}.
     */
    private static JobHandle finishedJob(String name, Path chk, Path out) throws Exception {
        Pipeline pipeline =
                Pipeline.create(name)
                        .checkpointing(CheckpointConfig.exactlyOnce(Duration.ofMillis(10), chk));
        pipeline.source("numbers", Sources.sequence(1, 100, 1, 0))
                .map(n -> Long.toString(n))
                .sink("out", FileSink.<String>to(out));
        JobHandle job = pipeline.start();
        job.await(Duration.ofSeconds(60));
        return job;
    }

    /**
     * A job whose input ended has nothing to stop: a stop-with-savepoint (or a savepoint) asked for
     * then says so and names its last checkpoint, which resumes it, instead of "not running".
     */
    @org.junit.jupiter.api.Test
    void aSavepointOfAJobThatFinishedNamesItsLastCheckpoint() throws Exception {
        JobHandle job = finishedJob("finished", dir.resolve("chk"), dir.resolve("out"));
        CheckpointStats last = job.checkpointStats().get(job.checkpointStats().size() - 1);

        for (var attempt :
                List.<java.util.function.Supplier<java.util.concurrent.CompletableFuture<?>>>of(
                        () -> job.stopWithSavepoint(dir.resolve("sp")),
                        () -> job.triggerSavepoint(dir.resolve("sp")))) {
            org.assertj.core.api.Assertions.assertThat(attempt.get())
                    .failsWithin(Duration.ofSeconds(10))
                    .withThrowableOfType(java.util.concurrent.ExecutionException.class)
                    .withMessageContaining("it has finished: its input ended")
                    .withMessageContaining("Its last completed checkpoint is " + last.id())
                    .withMessageContaining(last.path().toString());
        }
        assertThat(dir.resolve("sp")).doesNotExist();
    }

    /** A path that holds no checkpoint is refused as a wrong path, not as a corrupt checkpoint. */
    @org.junit.jupiter.api.Test
    void fromSavepointOfAPathWithoutACheckpointSaysSo() throws Exception {
        Files.createDirectories(dir.resolve("empty"));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> job(dir.resolve("nowhere")).run())
                .hasStackTraceContaining("no checkpoint or savepoint at")
                .hasStackTraceContaining("does not exist");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> job(dir.resolve("empty")).run())
                .hasStackTraceContaining("the directory holds none");
        // A checkpoint root: the refusal names the newest checkpoint inside it.
        JobHandle done = finishedJob("root", dir.resolve("root"), dir.resolve("root-out"));
        String newest =
                done.checkpointStats()
                        .get(done.checkpointStats().size() - 1)
                        .path()
                        .getFileName()
                        .toString();
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> job(dir.resolve("root")).run())
                .hasStackTraceContaining("is a checkpoint directory, not one checkpoint")
                .hasStackTraceContaining(newest);
    }

    /** A job stopped with a savepoint is pointed at that savepoint, from which it resumes. */
    @org.junit.jupiter.api.Test
    void aSavepointOfAStoppedJobPointsAtItsStopSavepoint() throws Exception {
        JobHandle first = startUntilCommitted(1);
        CheckpointStats savepoint =
                first.stopWithSavepoint(dir.resolve("sp")).get(60, TimeUnit.SECONDS);
        assertThat(first.await(Duration.ofSeconds(60)).stoppedWithSavepoint())
                .contains(savepoint.path());
        org.assertj.core.api.Assertions.assertThat(first.triggerSavepoint(dir.resolve("sp")))
                .failsWithin(Duration.ofSeconds(10))
                .withThrowableOfType(java.util.concurrent.ExecutionException.class)
                .withMessageContaining("it was stopped with savepoint " + savepoint.path())
                .withMessageContaining("Pipeline.fromSavepoint(" + savepoint.path() + ")")
                .withMessageContaining("on the same directory to resume from it");
    }

    static final java.util.concurrent.CountDownLatch HELD =
            new java.util.concurrent.CountDownLatch(1);
    static final java.util.concurrent.CountDownLatch HOLDING =
            new java.util.concurrent.CountDownLatch(1);

    /** A stop whose savepoint cannot complete before the job is cancelled says so. */
    @org.junit.jupiter.api.Test
    void aStopCancelledBeforeItsSavepointCompletedSaysTheSavepointWasAborted() throws Exception {
        Pipeline pipeline =
                Pipeline.create("held")
                        .checkpointing(
                                CheckpointConfig.exactlyOnce(
                                                Duration.ofHours(1), dir.resolve("chk3"))
                                        .withResume("none"));
        pipeline.source("numbers", Sources.sequence(1, 1_000, 1, 0))
                .map(
                        n -> {
                            HOLDING.countDown();
                            HELD.await(); // the barrier cannot pass this record
                            return Long.toString(n);
                        })
                .sink("out", FileSink.<String>to(dir.resolve("held-out")));
        JobHandle job = pipeline.start();
        try {
            HOLDING.await();
            var stop = job.stopWithSavepoint(dir.resolve("sp3"));
            job.cancel();
            HELD.countDown();
            org.assertj.core.api.Assertions.assertThat(stop)
                    .failsWithin(Duration.ofSeconds(60))
                    .withThrowableOfType(java.util.concurrent.ExecutionException.class)
                    .withMessageContaining("savepoint ")
                    .withMessageContaining("aborted: the job stopped")
                    .withMessageNotContaining("checkpoint ");
        } finally {
            HELD.countDown();
        }
    }
}
