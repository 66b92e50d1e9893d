package dev.weir.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.api.JobHandle;
import dev.weir.api.JobResult;
import dev.weir.api.Pipeline;
import dev.weir.api.RestartStrategy;
import dev.weir.api.UnrecoverableException;
import dev.weir.api.checkpoint.CheckpointConfig;
import dev.weir.api.checkpoint.CheckpointView;
import dev.weir.api.sink.JobInstance;
import dev.weir.api.source.Sources;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two different jobs with the same job and sink names (two copies of one service, each with its own
 * checkpoint directory) share the Kafka sink's default prefix: the second must refuse before it
 * touches the first's transactions, and say which jobs, which prefix and the fix.
 */
class KafkaSinkSharedPrefixTest {
    private static final int N = 3_000;

    @TempDir Path temp;

    /** The job: numbers 1..N in 2 splits, rate-limited so that it is still running when wanted. */
    private static Pipeline job(String name, Path checkpoints, String topic, int parallelism) {
        return job(name, checkpoints, topic, parallelism, "latest");
    }

    private static Pipeline job(
            String name, Path checkpoints, String topic, int parallelism, String resume) {
        return job(name, checkpoints, topic, parallelism, resume, 1_500);
    }

    /**
     * The job at {@code rate} records per second; without checkpointing if {@code checkpoints} is
     * null.
     */
    private static Pipeline job(
            String name,
            Path checkpoints,
            String topic,
            int parallelism,
            String resume,
            long rate) {
        Pipeline pipeline =
                Pipeline.create(name)
                        .parallelism(parallelism)
                        .restartStrategy(RestartStrategy.fixedDelay(3, Duration.ZERO));
        if (checkpoints != null) {
            pipeline.checkpointing(
                    CheckpointConfig.exactlyOnce(Duration.ofMillis(50), checkpoints)
                            .withResume(resume));
        }
        pipeline.source("numbers", Sources.sequence(1, N, 2, rate))
                .map(n -> Long.toString(n))
                .sink("out", KafkaSink.to(TestKafka.bootstrap(), topic, KafkaSerializer.strings()));
        return pipeline;
    }

    private static void assertEachNumberOnce(List<String> committed) {
        assertThat(committed)
                .as("the committed output: each of 1..%d once", N)
                .doesNotHaveDuplicates()
                .containsExactlyInAnyOrderElementsOf(
                        java.util.stream.LongStream.rangeClosed(1, N)
                                .mapToObj(Long::toString)
                                .toList());
    }

    @Test
    void aSecondJobWithTheSameNamesOnAnotherCheckpointDirectoryRefusesAndTheFirstRunsOn()
            throws Exception {
        String topic = TestKafka.newTopic("twins", 2);
        String name = "twins-" + topic; // unique on the shared broker
        String prefix = KafkaSink.defaultPrefix(name, "out");
        Path first = temp.resolve("first");
        Path second = temp.resolve("second");
        try (KafkaTransactions cluster =
                KafkaTransactions.connect(TestKafka.bootstrap(), Map.of())) {
            JobHandle running = job(name, first, topic, 2).start();
            // Wait until the first job committed output: it then has transactions in flight.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (cluster.committedCheckpoints(prefix).isEmpty()) {
                assertThat(running.isDone()).as("the first job still runs").isFalse();
                assertThat(System.nanoTime()).as("first job committed").isLessThan(deadline);
                java.util.concurrent.locks.LockSupport.parkNanos(20_000_000);
            }
            String instance = CheckpointView.instanceId(first).orElseThrow();
            assertThat(cluster.owner(prefix))
                    .hasValueSatisfying(o -> assertThat(o.instanceId()).isEqualTo(instance));

            JobHandle twin = job(name, second, topic, 2).start();
            assertThatThrownBy(() -> twin.await(Duration.ofSeconds(60)))
                    .hasRootCauseInstanceOf(UnrecoverableException.class)
                    .rootCause()
                    .hasMessageContaining("prefix '" + prefix + "'")
                    .hasMessageContaining(first.toAbsolutePath().toString())
                    .hasMessageContaining(second.toAbsolutePath().toString())
                    .hasMessageContaining("KafkaSink.transactionalIdPrefix(")
                    .hasMessageContaining("--delete --group '" + prefix + ":owner'");
            assertThat(twin.restarts()).as("refused at once, not retried").isZero();
            assertThat(running.isDone()).as("the twin ended while the first job ran").isFalse();
            // weir kafka transactions, pointed at the twin's directory, ends none of them either.
            assertThatThrownBy(() -> SinkTransactions.abort(second, "out", prefix, cluster))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("belongs to another job")
                    .hasMessageContaining(first.toAbsolutePath().toString());

            JobResult result = running.await(Duration.ofSeconds(120));
            assertThat(result.restarts()).as("the twin fenced none of the first job's").isZero();
            assertEachNumberOnce(TestKafka.readCommitted(topic));
            assertThat(cluster.open(prefix)).isEmpty();
            assertThat(cluster.owner(prefix))
                    .hasValueSatisfying(o -> assertThat(o.instanceId()).isEqualTo(instance));

            // The same job started again on its own directory, at another parallelism, is its
            // owner: it restores its final checkpoint and writes nothing twice.
            JobResult again = job(name, first, topic, 1).run();
            assertThat(again.restarts()).isZero();
            assertEachNumberOnce(TestKafka.readCommitted(topic));

            // Without the claim (released by hand, or expired), the twin still does not take the
            // first job's output for a lost checkpoint of its own: the refusal names the real
            // cause.
            try (Admin admin = TestKafka.admin(TestKafka.bootstrap())) {
                admin.deleteConsumerGroups(List.of(KafkaTransactions.ownerGroup(prefix)))
                        .all()
                        .get(30, TimeUnit.SECONDS);
            }
            assertThatThrownBy(() -> job(name, second, topic, 2).run())
                    .hasRootCauseInstanceOf(UnrecoverableException.class)
                    .rootCause()
                    .hasMessageContaining("prefix '" + prefix + "'")
                    .hasMessageContaining("holds output of checkpoint")
                    .hasMessageContaining(first.toAbsolutePath().toString())
                    .hasMessageContaining("KafkaSink.transactionalIdPrefix(");
            assertThat(cluster.owner(prefix)).as("a job that refuses claims nothing").isEmpty();
            // So the first job, started again, is not locked out by its twin's attempt.
            assertThat(job(name, first, topic, 2).run().restarts()).isZero();
            assertThat(cluster.owner(prefix))
                    .hasValueSatisfying(o -> assertThat(o.instanceId()).isEqualTo(instance));
            assertEachNumberOnce(TestKafka.readCommitted(topic));
        }
    }

    @Test
    void aJobStartedOverAfterItsCheckpointDirectoryWasDeletedIsToldToReleaseTheOldClaim()
            throws Exception {
        String topic = TestKafka.newTopic("started-over", 2);
        String name = "started-over-" + topic;
        String prefix = KafkaSink.defaultPrefix(name, "out");
        Path checkpoints = temp.resolve("chk");
        try (KafkaTransactions cluster =
                KafkaTransactions.connect(TestKafka.bootstrap(), Map.of())) {
            assertThat(job(name, checkpoints, topic, 2).run().restarts()).isZero();
            String old = CheckpointView.instanceId(checkpoints).orElseThrow();

            // The user deletes the directory to start over, fresh by request (the old output
            // stays theirs).
            deleteTree(checkpoints);
            // Nothing on the cluster proves the old job is not running elsewhere: refused, with
            // the command that releases the claim.
            assertThatThrownBy(() -> job(name, checkpoints, topic, 2, "none").run())
                    .hasRootCauseInstanceOf(UnrecoverableException.class)
                    .rootCause()
                    .hasMessageContaining("no longer holds it")
                    .hasMessageContaining("--delete --group '" + prefix + ":owner'")
                    .hasMessageNotContaining("If this is the same job moved");
            assertThat(cluster.open(prefix)).as("the refused run aborted nothing").isEmpty();
            try (Admin admin = TestKafka.admin(TestKafka.bootstrap())) {
                admin.deleteConsumerGroups(List.of(KafkaTransactions.ownerGroup(prefix)))
                        .all()
                        .get(30, TimeUnit.SECONDS);
            }
            deleteTree(checkpoints);
            JobResult again = job(name, checkpoints, topic, 2, "none").run();
            assertThat(again.restarts()).isZero();
            String fresh = CheckpointView.instanceId(checkpoints).orElseThrow();
            assertThat(fresh).isNotEqualTo(old);
            assertThat(cluster.owner(prefix))
                    .hasValueSatisfying(o -> assertThat(o.instanceId()).isEqualTo(fresh));
            assertThat(cluster.open(prefix)).isEmpty();
            // Written twice, once per start, as asked: no loss and nothing half-committed.
            List<String> committed = TestKafka.readCommitted(topic);
            assertThat(committed).hasSize(2 * N);
            assertThat(new java.util.HashSet<>(committed)).hasSize(N);
        }
    }

    /** Starts the job on {@code first} and waits until it committed output. */
    private static JobHandle startAndAwaitOutput(
            String name, Path first, String topic, String prefix, KafkaTransactions cluster)
            throws Exception {
        JobHandle running = job(name, first, topic, 2, "latest", 400).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (cluster.committedCheckpoints(prefix).isEmpty()) {
            assertThat(running.isDone()).as("the first job still runs").isFalse();
            assertThat(System.nanoTime()).as("first job committed").isLessThan(deadline);
            java.util.concurrent.locks.LockSupport.parkNanos(20_000_000);
        }
        return running;
    }

    @Test
    void aJobWithoutCheckpointingRefusesAPrefixAnotherJobClaimedAndAbortsNothingOfIt()
            throws Exception {
        String topic = TestKafka.newTopic("no-checkpoints", 2);
        String name = "no-checkpoints-" + topic;
        String prefix = KafkaSink.defaultPrefix(name, "out");
        Path first = temp.resolve("first");
        try (KafkaTransactions cluster =
                KafkaTransactions.connect(TestKafka.bootstrap(), Map.of())) {
            JobHandle running = startAndAwaitOutput(name, first, topic, prefix, cluster);

            // The same job, started without checkpointing: no instance id, so it claims nothing;
            // it must still not abort the running owner's transactions.
            JobHandle twin = job(name, null, topic, 2, "latest", 400).start();
            assertThatThrownBy(() -> twin.await(Duration.ofSeconds(60)))
                    .hasRootCauseInstanceOf(UnrecoverableException.class)
                    .rootCause()
                    .hasMessageContaining("prefix '" + prefix + "'")
                    .hasMessageContaining(first.toAbsolutePath().toString())
                    .hasMessageContaining("has no instance id")
                    .hasMessageContaining("KafkaSink.transactionalIdPrefix(")
                    .hasMessageContaining("enable checkpointing on its checkpoint directory")
                    .hasMessageContaining("share the default prefix");
            assertThat(twin.restarts()).as("refused at once, not retried").isZero();
            // A job of another name given the same prefix by hand: no talk of the default prefix
            // or of moving the same job.
            Pipeline other =
                    Pipeline.create("other-" + name)
                            .restartStrategy(RestartStrategy.fixedDelay(3, Duration.ZERO))
                            .checkpointing(
                                    CheckpointConfig.exactlyOnce(
                                            Duration.ofMillis(50), temp.resolve("other")));
            other.source("numbers", Sources.sequence(1, N, 2, 400))
                    .map(n -> Long.toString(n))
                    .sink(
                            "out",
                            KafkaSink.to(TestKafka.bootstrap(), topic, KafkaSerializer.strings())
                                    .transactionalIdPrefix(prefix));
            JobHandle otherJob = other.start();
            assertThatThrownBy(() -> otherJob.await(Duration.ofSeconds(60)))
                    .hasRootCauseInstanceOf(UnrecoverableException.class)
                    .rootCause()
                    .hasMessageContaining("prefix '" + prefix + "'")
                    .hasMessageContaining("The prefix was set with KafkaSink.transactionalIdPrefix")
                    .hasMessageNotContaining("share the default prefix")
                    .hasMessageNotContaining("start it on its checkpoint directory");
            assertThat(otherJob.restarts()).isZero();
            assertThat(running.isDone()).as("the twins ended while the first job ran").isFalse();

            JobResult result = running.await(Duration.ofSeconds(120));
            assertThat(result.restarts()).as("the twins aborted none of the first job's").isZero();
            assertEachNumberOnce(TestKafka.readCommitted(topic));
            assertThat(cluster.open(prefix)).isEmpty();
            // And the owner restores its final checkpoint on its directory: nothing lost, nothing
            // twice.
            assertThat(job(name, first, topic, 1).run().restarts()).isZero();
            assertEachNumberOnce(TestKafka.readCommitted(topic));
        }
    }

    @Test
    void aRunningOwnerWhoseDirectoryLooksGoneIsNotTakenOver() throws Exception {
        String topic = TestKafka.newTopic("looks-gone", 2);
        String name = "looks-gone-" + topic;
        String prefix = KafkaSink.defaultPrefix(name, "out");
        Path first = temp.resolve("first");
        Path second = temp.resolve("second");
        try (KafkaTransactions cluster =
                KafkaTransactions.connect(TestKafka.bootstrap(), Map.of())) {
            JobHandle running = startAndAwaitOutput(name, first, topic, prefix, cluster);
            String instance = CheckpointView.instanceId(first).orElseThrow();
            // As a twin in another container with the same host name and path sees it: the
            // owner's directory does not hold its instance id.
            Path idFile = first.resolve("_instance-id");
            Path aside = temp.resolve("instance-id-aside");
            java.nio.file.Files.move(idFile, aside);
            try {
                assertThat(cluster.owner(prefix).orElseThrow().isGoneFrom(JobInstance.thisHost()))
                        .as("the directory check alone is fooled")
                        .isTrue();
                JobHandle twin = job(name, second, topic, 2, "latest", 400).start();
                assertThatThrownBy(() -> twin.await(Duration.ofSeconds(60)))
                        .hasRootCauseInstanceOf(UnrecoverableException.class)
                        .rootCause()
                        .hasMessageContaining("prefix '" + prefix + "'")
                        .hasMessageContaining("is claimed by")
                        .hasMessageContaining("no longer holds it")
                        .hasMessageContaining("--delete --group '" + prefix + ":owner'");
                assertThat(twin.restarts()).as("refused at once, not retried").isZero();
                assertThat(running.isDone()).as("the owner still runs").isFalse();
            } finally {
                java.nio.file.Files.move(aside, idFile);
            }
            JobResult result = running.await(Duration.ofSeconds(120));
            assertThat(result.restarts()).as("the twin fenced none of the owner's").isZero();
            assertEachNumberOnce(TestKafka.readCommitted(topic));
            assertThat(cluster.owner(prefix))
                    .hasValueSatisfying(o -> assertThat(o.instanceId()).isEqualTo(instance));
        }
    }

    private static void deleteTree(Path root) throws java.io.IOException {
        try (java.util.stream.Stream<Path> paths = java.nio.file.Files.walk(root)) {
            for (Path path : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                java.nio.file.Files.delete(path);
            }
        }
    }
}
