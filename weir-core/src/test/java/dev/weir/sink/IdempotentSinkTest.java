package dev.weir.sink;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.api.Guarantee;
import dev.weir.api.JobResult;
import dev.weir.api.Pipeline;
import dev.weir.api.RestartStrategy;
import dev.weir.api.checkpoint.CheckpointConfig;
import dev.weir.api.codec.Codecs;
import dev.weir.api.sink.FileTableSink;
import dev.weir.api.source.Sources;
import dev.weir.internal.testhooks.FaultPoints;
import dev.weir.testing.KeyedCountJob;
import dev.weir.testing.KeyedCountJob.Update;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Keyed running aggregates upserted by key: replays rewrite identical values, so after failures the
 * table equals a failure-free run's, and the table records the checkpoint it reflects.
 */
class IdempotentSinkTest {
    static final long N = 30_000;
    static final long KEYS = 20;
    @TempDir Path dir;

    @AfterEach
    void disarm() {
        FaultPoints.disarm();
    }

    FileTableSink<Update, Long> table(boolean deterministic) {
        return new FileTableSink<>(
                dir.resolve("table"), Update::key, Codecs.record(Update.class), deterministic);
    }

    @ParameterizedTest(name = "failure at {0}")
    @ValueSource(
            strings = {
                "none",
                "barrier.aligned",
                "sink.checkpoint-complete-before-commit",
                "source.after-poll"
            })
    void afterFailuresTheTableEqualsAFailureFreeRun(String point) throws Exception {
        if (!point.equals("none")) {
            FaultPoints.throwAt(point, 3);
        }
        Pipeline pipeline =
                Pipeline.create("upserts")
                        .parallelism(2)
                        .checkpointing(
                                CheckpointConfig.exactlyOnce(
                                        Duration.ofMillis(10), dir.resolve("chk")))
                        .restartStrategy(RestartStrategy.fixedDelay(3, Duration.ZERO));
        // 30,000 records/s: the run lasts about a second, so the fault's third barrier alignment
        // comes before the input ends even on a loaded machine (at 100,000/s it once did not).
        KeyedCountJob.apply(pipeline.source("numbers", Sources.sequence(1, N, 2, 30_000)), KEYS)
                .sink("table", table(true));
        assertThat(pipeline.guarantee().guarantee()).isEqualTo(Guarantee.EXACTLY_ONCE);

        JobResult result = pipeline.run();

        List<Update> rows =
                FileTableSink.readTable(dir.resolve("table"), Codecs.record(Update.class));
        assertThat(rows).hasSize((int) KEYS);
        assertThat(KeyedCountJob.check(rows, N, KEYS).problems()).isEmpty();
        if (point.equals("barrier.aligned") || point.equals("source.after-poll")) {
            assertThat(FaultPoints.hits(point))
                    .as("the fault point was reached")
                    .isGreaterThanOrEqualTo(3);
            assertThat(result.restarts()).isPositive();
        }
        try (var files = Files.list(dir.resolve("table"))) {
            for (Path file : files.toList()) {
                // After the format marker and the generation: the checkpoint the file reflects.
                long storedCheckpoint =
                        java.nio.ByteBuffer.wrap(Files.readAllBytes(file), 16, 8).getLong();
                assertThat(storedCheckpoint).as("checkpoint id stored with %s", file).isPositive();
            }
        }
    }

    @Test
    void aSinkWhoseReplaysMayWriteOtherValuesIsAtLeastOnceAndSaysWhy() {
        Pipeline pipeline =
                Pipeline.create("nondeterministic")
                        .checkpointing(
                                CheckpointConfig.exactlyOnce(
                                        Duration.ofSeconds(1), dir.resolve("chk")));
        KeyedCountJob.apply(pipeline.source("numbers", Sources.sequence(1, 10)), 2)
                .sink("table", table(false));
        assertThat(pipeline.guarantee().describe())
                .startsWith(
                        "end-to-end guarantee: AT_LEAST_ONCE (limited by sink 'table' (file-table)")
                .contains("replays may write different values");
    }

    /**
     * After a restore at another parallelism, a key's records reach another subtask, whose file
     * gets the key's new row while the old subtask's file keeps the old one: the table holds one
     * row per key, the newest (the stored rows show the stale ones).
     */
    @Test
    void afterRestoresAtOtherParallelismsTheTableHasOneRowPerKeyTheNewest() throws Exception {
        Path savepoints = dir.resolve("sp");
        Path from = null;
        int[] parallelisms = {2, 1, 3};
        for (int i = 0; i < parallelisms.length; i++) {
            Pipeline pipeline =
                    Pipeline.create("rescaled-upserts")
                            .parallelism(parallelisms[i])
                            .checkpointing(
                                    CheckpointConfig.exactlyOnce(
                                                    Duration.ofHours(1), dir.resolve("chk"))
                                            .withResume("none"));
            if (from != null) {
                pipeline.fromSavepoint(from);
            }
            boolean last = i == parallelisms.length - 1;
            // Rate-limited in every run but the last, which reads to the end.
            KeyedCountJob.apply(
                            pipeline.source(
                                    "numbers", Sources.sequence(1, N, 4, last ? 0 : 20_000)),
                            KEYS)
                    .sink("table", table(true));
            if (last) {
                pipeline.run();
            } else {
                var job = pipeline.start();
                job.triggerCheckpoint().get(60, java.util.concurrent.TimeUnit.SECONDS);
                from =
                        job.stopWithSavepoint(savepoints)
                                .get(60, java.util.concurrent.TimeUnit.SECONDS)
                                .path();
                job.await(Duration.ofMinutes(1));
            }
        }

        List<Update> rows =
                FileTableSink.readTable(
                        dir.resolve("table"), Codecs.record(Update.class), Update::key);
        assertThat(rows).hasSize((int) KEYS);
        assertThat(KeyedCountJob.check(rows, N, KEYS).problems()).isEmpty();
        assertThat(FileTableSink.readTable(dir.resolve("table"), Codecs.record(Update.class)))
                .as("stored rows, stale ones of moved keys included")
                .hasSizeGreaterThan((int) KEYS);
    }

    /**
     * A restore into a new checkpoint directory numbers its checkpoints from the restored one's id
     * on, below those an earlier run reached after it: the rows it writes are still the newest (a
     * row's age is the writer's generation first, then the checkpoint).
     */
    @Test
    void rowsOfARestoreIntoANewDirectoryBeatAnEarlierRunsRowsOfHigherCheckpointIds()
            throws Exception {
        Pipeline first =
                Pipeline.create("rewound-upserts")
                        .parallelism(4)
                        .checkpointing(
                                CheckpointConfig.exactlyOnce(
                                        Duration.ofHours(1), dir.resolve("chk1")));
        KeyedCountJob.apply(first.source("numbers", Sources.sequence(1, N, 4, 10_000)), KEYS)
                .sink("table", table(true));
        var job = first.start();
        Path savepoint =
                job.triggerSavepoint(dir.resolve("sp"))
                        .get(60, java.util.concurrent.TimeUnit.SECONDS)
                        .path();
        for (int i = 0; i < 5; i++) {
            job.triggerCheckpoint().get(60, java.util.concurrent.TimeUnit.SECONDS);
        }
        job.cancel();
        org.assertj.core.api.Assertions.assertThatThrownBy(job::await)
                .isInstanceOf(java.util.concurrent.CancellationException.class);

        Pipeline second =
                Pipeline.create("rewound-upserts")
                        .parallelism(2)
                        .fromSavepoint(savepoint)
                        .checkpointing(
                                CheckpointConfig.exactlyOnce(
                                        Duration.ofHours(1), dir.resolve("chk2")));
        KeyedCountJob.apply(second.source("numbers", Sources.sequence(1, N, 4, 0)), KEYS)
                .sink("table", table(true));
        second.run();

        List<Update> rows =
                FileTableSink.readTable(
                        dir.resolve("table"), Codecs.record(Update.class), Update::key);
        assertThat(rows).hasSize((int) KEYS);
        assertThat(KeyedCountJob.check(rows, N, KEYS).problems()).isEmpty();
    }
}
