package dev.weir.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.api.JobFailedException;
import dev.weir.api.Pipeline;
import dev.weir.api.RestartStrategy;
import dev.weir.api.checkpoint.CheckpointConfig;
import dev.weir.api.checkpoint.CheckpointView;
import dev.weir.api.source.Sources;
import dev.weir.api.testing.FaultPoint;
import dev.weir.api.testing.Faults;
import dev.weir.sink.ExactlyOnceSinkConformance;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
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
                                                Duration.ofMillis(20), dir.resolve("chk"))
                                        // Every checkpoint stays: expectedOutput reads the one
                                        // each subtask's progress names.
                                        .withRetained(1000))
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

    /**
     * What the failed job's output must be, named record by record, from what it wrote down itself
     * rather than from what a read_committed consumer happens to see (an open transaction of one
     * subtask holds back the other subtask's committed records in the same partition).
     *
     * <p>The source is deterministic: split {@code seq-s-of-2} yields {@code 1 + s + 2i}, its
     * position in a checkpoint is how many it had emitted at that checkpoint's barrier, and sink
     * subtask {@code s} writes exactly split {@code s} (source, map and sink run chained at
     * parallelism 2). So subtask {@code s}'s output up to checkpoint {@code c} is its split's first
     * {@code position(c)} numbers. Its progress (the checkpoint its newest committed transaction
     * belongs to) says how far it committed; the newest complete checkpoint says how far its
     * pre-committed transactions go. What lies between is in the transactions the failure left
     * open, which committing by hand must reveal and aborting by hand must not.
     *
     * @param committed the records committed before the failure ended the job
     * @param pending the records of the checkpoint's pre-committed transactions that were not
     *     committed
     */
    private record Expected(Set<String> committed, Set<String> pending) {
        /** Everything the newest complete checkpoint covers. */
        Set<String> covered() {
            Set<String> all = new HashSet<>(committed);
            all.addAll(pending);
            return all;
        }
    }

    /** Reads {@link Expected} from the checkpoints and the sink's progress in {@code cluster}. */
    private Expected expectedOutput(
            String topic, KafkaTransactions cluster, SinkTransactions.Listing listing)
            throws Exception {
        CheckpointView newest = CheckpointView.latest(dir.resolve("chk")).orElseThrow();
        Map<String, Long> covered = newest.offsets("numbers");
        assertThat(covered).containsOnlyKeys("seq-0-of-2", "seq-1-of-2");
        Set<String> committed = new HashSet<>();
        Set<String> pending = new HashSet<>();
        Set<Integer> behind = new HashSet<>(); // subtasks with records not committed
        for (int subtask = 0; subtask < 2; subtask++) {
            String split = "seq-" + subtask + "-of-2";
            long progress = cluster.committedCheckpoint(topic, subtask);
            assertThat(progress)
                    .as(
                            "subtask %d committed no checkpoint newer than the newest complete",
                            subtask)
                    .isLessThanOrEqualTo(newest.id());
            long done =
                    progress < 0
                            ? 0
                            : CheckpointView.open(checkpoint(progress))
                                    .offsets("numbers")
                                    .get(split);
            long upTo = covered.get(split);
            assertThat(done)
                    .as("subtask %d committed within the checkpoint", subtask)
                    .isLessThanOrEqualTo(upTo);
            for (long i = 0; i < upTo; i++) {
                (i < done ? committed : pending).add(Long.toString(1 + subtask + 2 * i));
            }
            if (done < upTo) {
                behind.add(subtask);
            }
        }
        // The listing agrees: the subtasks whose output the checkpoint covers beyond their progress
        // are exactly those with a pre-committed transaction not committed yet (a transaction
        // exists only once a record was written into it).
        Set<Integer> uncommitted = new HashSet<>();
        for (SinkTransactions.Pending p : listing.pending()) {
            if (!p.committed()) {
                uncommitted.add(p.committable().subtask());
            }
        }
        assertThat(listing.checkpoint()).isEqualTo(newest.path());
        assertThat(uncommitted).as("subtasks with an uncommitted transaction").isEqualTo(behind);
        assertThat(pending).as("records the failure left in open transactions").isNotEmpty();
        return new Expected(committed, pending);
    }

    /** The complete checkpoint {@code id} of the job. */
    private Path checkpoint(long id) throws Exception {
        try (Stream<Path> dirs = Files.list(dir.resolve("chk"))) {
            return dirs.filter(d -> d.getFileName().toString().matches("chk-\\d+"))
                    .filter(d -> Long.parseLong(d.getFileName().toString().substring(4)) == id)
                    .filter(d -> Files.exists(d.resolve("_manifest")))
                    .findFirst()
                    .orElseThrow(
                            () ->
                                    new AssertionError(
                                            "checkpoint "
                                                    + id
                                                    + " (a subtask's progress) is not on disk"));
        }
    }

    @Test
    void committingByHandDoesWhatARestartWouldAndTheRestartThenAddsNothingTwice() throws Exception {
        String topic = TestKafka.newTopic("hand-commit", 2);
        failBeforeACommit(topic);
        // A commit that ran before the failure may still be writing its markers (and progress).
        TestKafka.awaitNoMarkersInFlight(topic);
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
            // A mistyped prefix (a job name off by a letter) is refused, naming the real one,
            // instead of listing the checkpoint's transactions under the wrong name.
            String typo = topic.substring(0, topic.length() - 1);
            org.assertj.core.api.Assertions.assertThatThrownBy(
                            () -> SinkTransactions.list(dir.resolve("chk"), "out", typo, cluster))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("under prefix '" + topic + "'")
                    .hasMessageContaining("not '" + typo + "'");
            Expected expected = expectedOutput(topic, cluster, listing);
            List<String> visibleBefore = TestKafka.readCommittedNow(topic);
            assertThat(visibleBefore).doesNotHaveDuplicates().isSubsetOf(expected.committed());

            List<String> lines = SinkTransactions.commit(dir.resolve("chk"), "out", topic, cluster);

            assertThat(lines).anyMatch(l -> l.startsWith("committed " + topic + ":"));
            assertThat(cluster.open(topic)).isEmpty();
            List<String> after = TestKafka.readCommitted(topic);
            assertThat(after)
                    .as("the pre-committed transactions' records became visible")
                    .containsAll(expected.pending());
            assertThat(after)
                    .as("what the checkpoint covers, each once (the rest was aborted)")
                    .doesNotHaveDuplicates()
                    .containsAll(visibleBefore)
                    .containsExactlyInAnyOrderElementsOf(expected.covered());
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
        // A commit that ran before the failure may still be writing its markers (and progress).
        TestKafka.awaitNoMarkersInFlight(topic);
        try (KafkaTransactions cluster =
                KafkaTransactions.connect(TestKafka.bootstrap(), Map.of())) {
            assertThat(cluster.open(topic)).isNotEmpty();
            Expected expected =
                    expectedOutput(
                            topic,
                            cluster,
                            SinkTransactions.list(dir.resolve("chk"), "out", topic, cluster));
            // What was committed need not all be visible yet: an open transaction holds its
            // partitions' last stable offset back, so read_committed does not see the other
            // subtask's committed records written after it began. The abort may reveal them.
            List<String> visibleBefore = TestKafka.readCommittedNow(topic);
            assertThat(visibleBefore).doesNotHaveDuplicates().isSubsetOf(expected.committed());

            List<String> lines = SinkTransactions.abort(dir.resolve("chk"), "out", topic, cluster);

            assertThat(lines).anyMatch(l -> l.startsWith("aborted "));
            assertThat(cluster.open(topic)).isEmpty();
            List<String> after = TestKafka.readCommitted(topic);
            assertThat(after)
                    .as("no record of the aborted pre-committed transactions became visible")
                    .doesNotContainAnyElementsOf(expected.pending());
            assertThat(after)
                    .as("what was committed before the failure, each once, and nothing else")
                    .doesNotHaveDuplicates()
                    .containsAll(visibleBefore)
                    .containsExactlyInAnyOrderElementsOf(expected.committed());
        }
    }
}
