package dev.weir.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.api.JobFailedException;
import dev.weir.api.Pipeline;
import dev.weir.api.RestartStrategy;
import dev.weir.api.checkpoint.CheckpointConfig;
import dev.weir.api.source.Sources;
import dev.weir.api.testing.FaultPoint;
import dev.weir.api.testing.Faults;
import dev.weir.sink.ExactlyOnceSinkConformance;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code weir kafka transactions}: a job that failed after a checkpoint completed and before its
 * commits ran leaves pre-committed transactions open; listed from its checkpoint directory, they
 * can be committed (as a restart would) or aborted by hand.
 */
class SinkTransactionsTest {
    static final int N = ExactlyOnceSinkConformance.N;
    @TempDir Path dir;

    @AfterEach
    void disarm() {
        Faults.disarm();
    }

    private Pipeline job(String topic, RestartStrategy restarts) {
        Pipeline pipeline =
                Pipeline.create("hand")
                        .parallelism(2)
                        .checkpointing(
                                CheckpointConfig.exactlyOnce(
                                        Duration.ofMillis(20), dir.resolve("chk")))
                        .restartStrategy(restarts);
        pipeline.source("numbers", Sources.sequence(1, N, 2, 8_000))
                .map(n -> Long.toString(n))
                .sink(
                        "out",
                        KafkaSink.to(TestKafka.bootstrap(), topic, KafkaSerializer.strings())
                                .transactionalIdPrefix(topic));
        return pipeline;
    }

    /** Runs until a checkpoint completed and its commit did not run, then the job fails. */
    private void failBeforeACommit(String topic) {
        Faults.throwAt(FaultPoint.SINK_CHECKPOINT_COMPLETE_BEFORE_COMMIT, 3);
        assertThatThrownBy(() -> job(topic, RestartStrategy.none()).run())
                .isInstanceOf(JobFailedException.class);
        Faults.disarm();
    }

    @Test
    void committingByHandDoesWhatARestartWouldAndTheRestartThenAddsNothingTwice() throws Exception {
        String topic = TestKafka.newTopic("hand-commit", 2);
        failBeforeACommit(topic);
        try (KafkaTransactions cluster =
                KafkaTransactions.connect(TestKafka.bootstrap(), Map.of())) {
            SinkTransactions.Listing listing =
                    SinkTransactions.list(dir.resolve("chk"), "out", topic, cluster);
            assertThat(listing.checkpoint()).isNotNull();
            assertThat(listing.pending())
                    .isNotEmpty()
                    .anySatisfy(
                            p -> {
                                assertThat(p.committed()).isFalse();
                                assertThat(p.state()).isEqualTo("Ongoing");
                            });
            TestKafka.awaitNoMarkersInFlight(topic);
            int before = TestKafka.readCommittedNow(topic).size();

            List<String> lines = SinkTransactions.commit(dir.resolve("chk"), "out", topic, cluster);

            assertThat(lines).anyMatch(l -> l.startsWith("committed " + topic + ":"));
            assertThat(cluster.open(topic)).isEmpty();
            assertThat(TestKafka.readCommitted(topic))
                    .hasSizeGreaterThan(before)
                    .doesNotHaveDuplicates();
            assertThat(SinkTransactions.list(dir.resolve("chk"), "out", topic, cluster).pending())
                    .allMatch(SinkTransactions.Pending::committed);
        }
        // Started again after all, the job finds its transactions committed and finishes once.
        job(topic, RestartStrategy.fixedDelay(3, Duration.ZERO)).run();
        ExactlyOnceSinkConformance.assertExactlyOnce(TestKafka.readCommitted(topic));
    }

    @Test
    void aCheckpointDirectoryWhoseLockIsHeldIsRefusedForChangesByHand() throws Exception {
        java.nio.file.Path checkpoints = java.nio.file.Files.createDirectories(dir.resolve("held"));
        SinkTransactions.requireNoRunningJob(checkpoints); // no lock file: nothing runs there
        try (java.nio.channels.FileChannel channel =
                        java.nio.channels.FileChannel.open(
                                checkpoints.resolve(".lock"),
                                java.nio.file.StandardOpenOption.CREATE,
                                java.nio.file.StandardOpenOption.WRITE);
                java.nio.channels.FileLock held = channel.lock()) {
            assertThatThrownBy(() -> SinkTransactions.requireNoRunningJob(checkpoints))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("a job is running on checkpoint directory")
                    .hasMessageContaining("Stop it first");
        }
        SinkTransactions.requireNoRunningJob(checkpoints); // released: a job that is down
    }

    @Test
    void abortingByHandEndsEveryOpenTransactionOfTheSink() throws Exception {
        String topic = TestKafka.newTopic("hand-abort", 2);
        failBeforeACommit(topic);
        // A commit that ran before the failure may still be writing its markers.
        TestKafka.awaitNoMarkersInFlight(topic);
        int before = TestKafka.readCommittedNow(topic).size();
        try (KafkaTransactions cluster =
                KafkaTransactions.connect(TestKafka.bootstrap(), Map.of())) {
            assertThat(cluster.open(topic)).isNotEmpty();

            List<String> lines = SinkTransactions.abort(dir.resolve("chk"), "out", topic, cluster);

            assertThat(lines).anyMatch(l -> l.startsWith("aborted "));
            assertThat(cluster.open(topic)).isEmpty();
        }
        assertThat(TestKafka.readCommitted(topic))
                .as("nothing more became visible")
                .hasSize(before);
    }
}
