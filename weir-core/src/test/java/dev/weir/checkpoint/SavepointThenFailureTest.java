package dev.weir.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.api.JobHandle;
import dev.weir.api.Pipeline;
import dev.weir.api.RestartStrategy;
import dev.weir.api.checkpoint.CheckpointConfig;
import dev.weir.api.checkpoint.CheckpointStats;
import dev.weir.api.checkpoint.CheckpointView;
import dev.weir.api.sink.FileSink;
import dev.weir.api.source.Sources;
import dev.weir.internal.io.DurableFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A savepoint's output is committed like a checkpoint's, so until a newer checkpoint completes it
 * is the state a restart restores — in the same JVM after a failure, and in a new run on the same
 * checkpoint directory after a stop-with-savepoint. Restoring the older checkpoint instead would
 * write the savepoint's output twice (the file sink refuses that, so the job could not go on).
 */
class SavepointThenFailureTest {
    static final long N = 200_000;
    static final AtomicBoolean FAIL = new AtomicBoolean();

    @TempDir Path dir;

    Pipeline job(String resume, long rate) {
        return job(resume, rate, "out", n -> FAIL.compareAndSet(true, false));
    }

    /** The job: records 1..N as lines into a file sink; a record {@code failAt} picks throws. */
    Pipeline job(String resume, long rate, String out, java.util.function.LongPredicate failAt) {
        Pipeline pipeline =
                Pipeline.create("savepoint-then-failure")
                        .parallelism(2)
                        .restartStrategy(RestartStrategy.fixedDelay(3, Duration.ofMillis(10)))
                        .checkpointing(
                                CheckpointConfig.exactlyOnce(
                                                Duration.ofHours(1), dir.resolve("chk"))
                                        .withResume(resume));
        pipeline.source("numbers", Sources.sequence(1, N, 2, rate))
                .map(
                        n -> {
                            if (failAt.test(n)) {
                                throw new IllegalStateException("injected");
                            }
                            return Long.toString(n);
                        })
                .sink("out", FileSink.<String>to(dir.resolve(out)));
        return pipeline;
    }

    void assertEachRecordOnce() throws Exception {
        List<String> all = FileSink.readCommitted(dir.resolve("out"));
        assertThat(new HashSet<>(all)).hasSize((int) N);
        assertThat(all).hasSize((int) N);
    }

    @Test
    void aFailureAfterASavepointRestoresTheSavepointInTheSameJvm() throws Exception {
        FAIL.set(false);
        JobHandle job = job("none", 50_000).start();
        job.triggerCheckpoint().get(60, TimeUnit.SECONDS);
        CheckpointStats savepoint =
                job.triggerSavepoint(dir.resolve("sp")).get(60, TimeUnit.SECONDS);
        assertThat(CheckpointView.latest(dir.resolve("chk")).orElseThrow().id())
                .isEqualTo(savepoint.id());
        FAIL.set(true);

        job.await(Duration.ofMinutes(2));

        assertThat(job.restarts()).isEqualTo(1);
        assertEachRecordOnce();
        // The checkpoint after it made the reference needless: it goes, the savepoint stays.
        try (Stream<Path> files = Files.list(dir.resolve("chk"))) {
            assertThat(files.map(p -> p.getFileName().toString()))
                    .noneMatch(name -> name.startsWith("_savepoint-"));
        }
        assertThat(savepoint.path().resolve("_manifest")).exists();
    }

    @Test
    void aJobStoppedWithASavepointResumesFromItOnTheSameCheckpointDirectory() throws Exception {
        FAIL.set(false);
        JobHandle job = job("none", 50_000).start();
        job.triggerCheckpoint().get(60, TimeUnit.SECONDS);
        job.stopWithSavepoint(dir.resolve("sp")).get(60, TimeUnit.SECONDS);
        job.await(Duration.ofMinutes(1));
        assertThat(FileSink.readCommitted(dir.resolve("out"))).hasSizeLessThan((int) N);

        job("latest", 0).run();

        assertEachRecordOnce();
    }

    @Test
    void aSavepointThatIsGoneIsRefusedWithTheWayOutNotReplacedByAnOlderCheckpoint()
            throws Exception {
        FAIL.set(false);
        JobHandle job = job("none", 50_000).start();
        job.triggerCheckpoint().get(60, TimeUnit.SECONDS);
        CheckpointStats savepoint =
                job.stopWithSavepoint(dir.resolve("sp")).get(60, TimeUnit.SECONDS);
        job.await(Duration.ofMinutes(1));
        DurableFiles.deleteRecursively(savepoint.path());

        assertThatThrownBy(() -> job("latest", 0).run())
                .hasStackTraceContaining("savepoint " + savepoint.id())
                .hasStackTraceContaining("is gone")
                .hasStackTraceContaining("Put the savepoint back");
        assertThatThrownBy(() -> CheckpointView.latest(dir.resolve("chk")))
                .hasMessageContaining("is gone");
    }

    /**
     * A run that starts fresh (resume "none") on a directory an earlier run left checkpoints in,
     * and fails before its own first checkpoint, starts fresh again: it does not restore the
     * earlier run's checkpoint (whose splits had ended, so the restart would add nothing).
     */
    @Test
    void aRestartBeforeTheFirstCheckpointOfAFreshRunDoesNotRestoreAnEarlierRunsCheckpoint()
            throws Exception {
        FAIL.set(false);
        job("none", 0).run(); // ends with a final checkpoint in chk
        java.util.concurrent.atomic.AtomicLong seen = new java.util.concurrent.atomic.AtomicLong();
        Pipeline fresh = job("none", 0, "out2", n -> seen.incrementAndGet() == 1_000);

        JobHandle job = fresh.start();
        job.await(Duration.ofMinutes(2));

        assertThat(job.restarts()).isEqualTo(1);
        List<String> all = FileSink.readCommitted(dir.resolve("out2"));
        assertThat(new HashSet<>(all)).hasSize((int) N);
        assertThat(all).hasSize((int) N);
    }

    /**
     * A checkpoint restored into a pipeline whose sink of the same name is of another kind is
     * refused naming both kinds and the way out, instead of decoding one sink's prepared
     * transactions as the other's (an out-of-memory error or an end-of-file).
     */
    @Test
    void aSinkOfAnotherKindUnderTheSameNameIsRefusedNamingBoth() throws Exception {
        FAIL.set(false);
        JobHandle job = job("none", 50_000).start();
        CheckpointStats savepoint =
                job.stopWithSavepoint(dir.resolve("sp")).get(60, TimeUnit.SECONDS);
        job.await(Duration.ofMinutes(1));

        Path log = dir.resolve("log");
        try (dev.weir.api.log.DurableLog created =
                dev.weir.api.log.DurableLog.open(log, dev.weir.api.log.LogOptions.defaults())) {
            created.createTopic("out", 1);
        }
        Pipeline swapped =
                Pipeline.create("savepoint-then-failure")
                        .parallelism(2)
                        .fromSavepoint(savepoint.path())
                        .checkpointing(
                                CheckpointConfig.exactlyOnce(
                                                Duration.ofHours(1), dir.resolve("chk2"))
                                        .withResume("none"));
        swapped.source("numbers", Sources.sequence(1, N, 2, 0))
                .map(n -> Long.toString(n))
                .sink(
                        "out",
                        dev.weir.api.sink.LogSink.to(log, "out", dev.weir.api.codec.Codecs.STRING));

        assertThatThrownBy(swapped::run)
                .hasStackTraceContaining("holds the state of a 'file' sink")
                .hasStackTraceContaining("is a 'log' sink")
                .hasStackTraceContaining("another step name");
    }

    /**
     * A fresh start into a file sink directory with earlier committed output is allowed, loudly.
     */
    @Test
    void aFreshStartIntoAFileSinkWithEarlierOutputWarns() throws Exception {
        FAIL.set(false);
        job("none", 0).run();
        java.io.PrintStream original = System.err;
        java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
        System.setErr(
                new java.io.PrintStream(captured, true, java.nio.charset.StandardCharsets.UTF_8));
        try {
            job("none", 0).run();
        } finally {
            System.setErr(original);
        }
        String log = captured.toString(java.nio.charset.StandardCharsets.UTF_8);
        original.print(log);
        assertThat(log).contains("already holds committed output of an earlier run");
        assertThat(FileSink.readCommitted(dir.resolve("out"))).hasSize(2 * (int) N);
    }
}
