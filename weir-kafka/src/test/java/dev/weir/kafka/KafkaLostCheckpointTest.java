package dev.weir.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.api.JobFailedException;
import dev.weir.api.Pipeline;
import dev.weir.api.RestartStrategy;
import dev.weir.api.UnrecoverableException;
import dev.weir.api.checkpoint.CheckpointConfig;
import dev.weir.api.source.Sources;
import dev.weir.api.testing.FaultPoint;
import dev.weir.api.testing.Faults;
import dev.weir.sink.ExactlyOnceSinkConformance;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A checkpoint that completed, whose commits ran, and whose manifest was then lost (invariant 11 of
 * docs/design/001-checkpoints.md): the job would resume from the older checkpoint and write the
 * lost one's output to the topic a second time. The Kafka sink refuses, naming the progress group;
 * a normal crash and a fresh start by request go on.
 */
class KafkaLostCheckpointTest {
    static final int N = ExactlyOnceSinkConformance.N;
    @TempDir Path dir;

    @AfterEach
    void disarm() {
        Faults.disarm();
    }

    private void run(String topic, int sinkParallelism, String resume, RestartStrategy restarts)
            throws Exception {
        Pipeline pipeline =
                Pipeline.create("lost-" + topic)
                        .parallelism(2)
                        .checkpointing(
                                CheckpointConfig.exactlyOnce(
                                                Duration.ofMillis(20), dir.resolve("chk"))
                                        .withResume(resume))
                        .restartStrategy(restarts);
        pipeline.source("numbers", Sources.sequence(1, N, 2, 8_000))
                .map(n -> Long.toString(n))
                .sink(
                        "out",
                        KafkaSink.to(TestKafka.bootstrap(), topic, KafkaSerializer.strings())
                                .transactionalIdPrefix(topic))
                .parallelism(sinkParallelism);
        pipeline.run();
    }

    private void runUntilCommit(String topic, int sinkParallelism, long commit) {
        Faults.throwAt(FaultPoint.SINK_AFTER_COMMIT, commit);
        assertThatThrownBy(() -> run(topic, sinkParallelism, "latest", RestartStrategy.none()))
                .isInstanceOf(JobFailedException.class);
        Faults.disarm();
    }

    private Path newestComplete() throws Exception {
        try (Stream<Path> dirs = Files.list(dir.resolve("chk"))) {
            return dirs.filter(d -> Files.exists(d.resolve("_manifest")))
                    .max((a, b) -> Long.compare(idOf(a), idOf(b)))
                    .orElseThrow();
        }
    }

    private boolean hasComplete() throws Exception {
        try (Stream<Path> dirs = Files.list(dir.resolve("chk"))) {
            return dirs.anyMatch(d -> Files.exists(d.resolve("_manifest")));
        }
    }

    private static long idOf(Path checkpoint) {
        String name = checkpoint.getFileName().toString();
        return Long.parseLong(name.substring(name.indexOf('-') + 1));
    }

    private static long newestProgress(String prefix) {
        try (KafkaTransactions cluster =
                KafkaTransactions.connect(TestKafka.bootstrap(), Map.of())) {
            return cluster.committedCheckpoints(prefix).values().stream()
                    .mapToLong(Long::longValue)
                    .max()
                    .orElse(-1);
        }
    }

    @ParameterizedTest(name = "sink parallelism {0}, then {1}")
    @CsvSource({"1, 1", "3, 2"})
    void aLostManifestWhoseCommitsRanIsRefused(int before, int after) throws Exception {
        String topic = TestKafka.newTopic("lost", 2);
        runUntilCommit(topic, before, 3);
        // The lost checkpoint is the newest whose commits ran; a newer one may have completed
        // while the job failed (its commit had not run): lose that one's manifest too.
        long lostId = newestProgress(topic);
        assertThat(lostId).as("a checkpoint's commits ran").isPositive();
        assertThat(idOf(newestComplete())).isGreaterThanOrEqualTo(lostId);
        Map<Path, byte[]> manifests = new java.util.HashMap<>();
        while (idOf(newestComplete()) >= lostId) {
            Path manifest = newestComplete().resolve("_manifest");
            manifests.put(manifest, Files.readAllBytes(manifest));
            Files.delete(manifest);
            if (!hasComplete()) {
                break;
            }
        }
        // The lost checkpoint's transactions that did not commit yet stay open: wait only for the
        // markers of commits that already ran.
        TestKafka.awaitNoMarkersInFlight(topic);
        int committedBefore = TestKafka.readCommittedNow(topic).size();

        assertThatThrownBy(
                        () ->
                                run(
                                        topic,
                                        after,
                                        "latest",
                                        RestartStrategy.fixedDelay(3, Duration.ZERO)))
                .isInstanceOf(JobFailedException.class)
                .satisfies(e -> assertThat(UnrecoverableException.isUnrecoverable(e)).isTrue())
                .hasStackTraceContaining("sink 'out' refuses to run")
                .hasStackTraceContaining("committed output of checkpoint " + lostId)
                .hasStackTraceContaining("Put the lost checkpoint back");
        assertThat(TestKafka.readCommitted(topic))
                .as("the refused run committed nothing")
                .hasSize(committedBefore);

        if (before == 1 && after == 1) {
            // The fix: put the manifest back; the refused run aborted nothing it had to commit.
            for (Map.Entry<Path, byte[]> manifest : manifests.entrySet()) {
                Files.write(manifest.getKey(), manifest.getValue());
            }
            run(topic, after, "latest", RestartStrategy.fixedDelay(3, Duration.ZERO));
            ExactlyOnceSinkConformance.assertExactlyOnce(TestKafka.readCommitted(topic));
        }
    }

    @Test
    void aNormalCrashResumesWithoutARefusal() throws Exception {
        String topic = TestKafka.newTopic("crash", 2);
        runUntilCommit(topic, 3, 4);
        run(topic, 3, "latest", RestartStrategy.fixedDelay(3, Duration.ZERO));
        ExactlyOnceSinkConformance.assertExactlyOnce(TestKafka.readCommitted(topic));
        try (KafkaTransactions cluster =
                KafkaTransactions.connect(TestKafka.bootstrap(), Map.of())) {
            assertThat(cluster.open(topic)).isEmpty();
        }
    }

    @Test
    void aFreshStartByRequestIsNotRefusedAndForgetsTheProgress() throws Exception {
        String topic = TestKafka.newTopic("fresh", 2);
        runUntilCommit(topic, 2, 4);
        Files.delete(newestComplete().resolve("_manifest"));
        run(topic, 2, "none", RestartStrategy.fixedDelay(3, Duration.ZERO));
        // Output of the first run stays in the topic; the new run wrote all of it once more.
        assertThat(TestKafka.readCommitted(topic).size()).isGreaterThanOrEqualTo(N);
        assertThat(newestProgress(topic)).as("progress of this run only").isPositive();
        run(topic, 2, "latest", RestartStrategy.fixedDelay(3, Duration.ZERO));
    }
}
