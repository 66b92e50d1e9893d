package dev.weir.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.api.Guarantee;
import dev.weir.api.JobFailedException;
import dev.weir.api.Pipeline;
import dev.weir.api.RestartStrategy;
import dev.weir.api.UnrecoverableException;
import dev.weir.api.checkpoint.CheckpointConfig;
import dev.weir.api.source.Sources;
import dev.weir.api.testing.FaultPoint;
import dev.weir.api.testing.Faults;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Kafka sink's own behaviour beyond the conformance suite, against a real broker. */
class KafkaSinkTest {
    private static final int N = 2_000;

    @TempDir Path temp;

    private Pipeline pipeline(String name, int parallelism) {
        return Pipeline.create(name)
                .parallelism(parallelism)
                .checkpointing(
                        CheckpointConfig.exactlyOnce(Duration.ofMillis(50), temp.resolve("chk")))
                .restartStrategy(RestartStrategy.fixedDelay(3, Duration.ZERO));
    }

    private static KafkaSink<String> sink(String topic) {
        return KafkaSink.to(TestKafka.bootstrap(), topic, KafkaSerializer.strings())
                .transactionalIdPrefix(topic);
    }

    private void writeNumbers(Pipeline pipeline, KafkaSink<String> sink) throws Exception {
        pipeline.source("numbers", Sources.sequence(1, N, 2, 0))
                .map(n -> Long.toString(n))
                .sink("out", sink);
        pipeline.run();
    }

    @Test
    void aTransactionTimeoutAboveTheBrokersMaximumFailsTheJobNamingBothSettings() {
        String topic = TestKafka.newTopic("broker-max", 1);
        Pipeline pipeline = pipeline("broker-max", 1);
        assertThatThrownBy(
                        () ->
                                writeNumbers(
                                        pipeline,
                                        sink(topic).transactionTimeout(Duration.ofMinutes(16))))
                .isInstanceOf(JobFailedException.class)
                .hasRootCauseInstanceOf(UnrecoverableException.class)
                .rootCause()
                .hasMessageContaining("transaction.timeout.ms (960000 ms")
                .hasMessageContaining("transaction.max.timeout.ms (900000 ms)");
    }

    @Test
    void
            aTransactionTimeoutNotAboveIntervalPlusCheckpointTimeoutPlusRestartDelayIsRefusedAtStart() {
        String topic = TestKafka.newTopic("short-timeout", 1);
        Pipeline pipeline =
                Pipeline.create("short-timeout")
                        .checkpointing(
                                CheckpointConfig.exactlyOnce(Duration.ofSeconds(1), temp)
                                        .withTimeout(Duration.ofSeconds(60)))
                        .restartStrategy(RestartStrategy.fixedDelay(3, Duration.ofSeconds(1)));
        pipeline.source("numbers", Sources.sequence(1, 3))
                .map(n -> Long.toString(n))
                .sink("out", sink(topic).transactionTimeout(Duration.ofSeconds(60)));
        assertThatThrownBy(pipeline::start)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("transaction.timeout.ms")
                .hasMessageContaining("checkpoint interval PT1S")
                .hasMessageContaining("checkpoint timeout PT1M")
                .hasMessageContaining("restart delay PT1S");
    }

    @Test
    void aStartAtAnotherParallelismAbortsEveryLingeringTransactionOfTheJob() throws Exception {
        String topic = TestKafka.newTopic("lingering", 2);
        try (KafkaTransactions cluster =
                KafkaTransactions.connect(TestKafka.bootstrap(), Map.of())) {
            // Left open by an earlier run at parallelism 3 (one of them in slot 1).
            for (String id : List.of(topic + ":0:0", topic + ":1:0", topic + ":2:1")) {
                KafkaProducer<byte[], byte[]> producer = cluster.producer(id, 600_000);
                producer.initTransactions();
                producer.beginTransaction();
                producer.send(new ProducerRecord<>(topic, TestKafka.utf8("lingering " + id)));
                producer.flush();
                producer.close(Duration.ZERO);
            }
            assertThat(cluster.open(topic)).hasSize(3);

            writeNumbers(pipeline("lingering", 1), sink(topic));

            assertThat(cluster.open(topic)).isEmpty();
        }
        List<String> committed = TestKafka.readCommitted(topic);
        assertThat(committed)
                .hasSize(N)
                .doesNotHaveDuplicates()
                .noneMatch(v -> v.startsWith("lingering"));
    }

    @Test
    void keyedRecordsOfOneKeyStayInOnePartitionInOrderWithTheirHeaders() throws Exception {
        String topic = TestKafka.newTopic("keyed", 4);
        KafkaSink<String> keyed =
                KafkaSink.<String>to(
                                TestKafka.bootstrap(),
                                topic,
                                (element, t) -> {
                                    long n = Long.parseLong(element);
                                    RecordHeaders headers = new RecordHeaders();
                                    headers.add(
                                            "parity", TestKafka.utf8(n % 2 == 0 ? "even" : "odd"));
                                    return new ProducerRecord<>(
                                            t,
                                            null,
                                            TestKafka.utf8("key-" + (n % 10)),
                                            TestKafka.utf8(element),
                                            headers);
                                })
                        .transactionalIdPrefix(topic);
        Pipeline pipeline = pipeline("keyed", 1);
        pipeline.source("numbers", Sources.sequence(1, N))
                .map(n -> Long.toString(n))
                .sink("out", keyed);
        pipeline.run();

        // Commit markers are written after commitTransaction returns: wait for them, as
        // readCommitted does (read at once, a CI run once saw 614 of the 2000 records).
        TestKafka.awaitStable(TestKafka.bootstrap(), topic, java.time.Duration.ofSeconds(15));
        List<ConsumerRecord<byte[], byte[]>> records =
                TestKafka.records(TestKafka.bootstrap(), topic, true);
        assertThat(records).hasSize(N);
        Map<String, Set<Integer>> partitionsOfKey = new HashMap<>();
        Map<String, Long> lastOfKey = new HashMap<>();
        for (ConsumerRecord<byte[], byte[]> record : records) {
            String key = new String(record.key(), StandardCharsets.UTF_8);
            long value = Long.parseLong(new String(record.value(), StandardCharsets.UTF_8));
            partitionsOfKey.computeIfAbsent(key, k -> new HashSet<>()).add(record.partition());
            assertThat(value).as("order of " + key).isGreaterThan(lastOfKey.getOrDefault(key, 0L));
            lastOfKey.put(key, value);
            assertThat(
                            new String(
                                    record.headers().lastHeader("parity").value(),
                                    StandardCharsets.UTF_8))
                    .isEqualTo(value % 2 == 0 ? "even" : "odd");
        }
        assertThat(partitionsOfKey).hasSize(10).allSatisfy((k, p) -> assertThat(p).hasSize(1));
    }

    @Test
    void eachModeDeclaresItsGuaranteeAndTheLimitationNamesTheFix() throws Exception {
        KafkaSink<String> sink = sink("t");
        assertThat(sink.guarantee()).isEqualTo(Guarantee.EXACTLY_ONCE);
        assertThat(sink.limitation()).isEmpty();
        assertThat(sink.mode(KafkaSink.Mode.AT_LEAST_ONCE).guarantee())
                .isEqualTo(Guarantee.AT_LEAST_ONCE);
        assertThat(sink.mode(KafkaSink.Mode.AT_LEAST_ONCE).transactionTimeout()).isZero();
        assertThat(sink.mode(KafkaSink.Mode.NONE).guarantee()).isEqualTo(Guarantee.AT_MOST_ONCE);

        Pipeline pipeline = Pipeline.create("guarantee");
        pipeline.source(
                        "in",
                        KafkaSource.topics(TestKafka.bootstrap(), KafkaDeserializer.strings(), "t"))
                .sink("out", sink.mode(KafkaSink.Mode.AT_LEAST_ONCE));
        pipeline.checkpointing(CheckpointConfig.exactlyOnce(Duration.ofSeconds(1), temp));
        assertThat(pipeline.guarantee().describe())
                .contains("AT_LEAST_ONCE")
                .contains("sink 'out' (kafka)")
                .contains("KafkaSink.mode(Mode.EXACTLY_ONCE)");
    }

    @Test
    void atLeastOnceWritesEveryRecord() throws Exception {
        String topic = TestKafka.newTopic("alo", 2);
        writeNumbers(pipeline("alo", 2), sink(topic).mode(KafkaSink.Mode.AT_LEAST_ONCE));
        assertThat(TestKafka.readCommitted(topic)).hasSize(N).doesNotHaveDuplicates();
    }

    @Test
    void aMissingTopicFailsTheJobAtOnceNamingIt() {
        assertThatThrownBy(() -> writeNumbers(pipeline("missing", 1), sink("no-such-sink-topic")))
                .isInstanceOf(JobFailedException.class)
                .hasRootCauseInstanceOf(UnrecoverableException.class)
                .rootCause()
                .hasMessageContaining("'no-such-sink-topic' does not exist");
    }

    @Test
    void aPreCommittedTransactionTheBrokerAbortedForItsAgeIsReportedAsLostDataNotSilently()
            throws Exception {
        String topic = TestKafka.newTopic("timed-out", 2);
        KafkaSink<String> sink = sink(topic).transactionTimeout(Duration.ofSeconds(3));
        Faults.throwAt(FaultPoint.SINK_CHECKPOINT_COMPLETE_BEFORE_COMMIT, 3);
        try {
            assertThatThrownBy(
                            () ->
                                    writePaced(
                                            shortTimeouts("timed-out", RestartStrategy.none()),
                                            sink))
                    .isInstanceOf(JobFailedException.class);
        } finally {
            Faults.disarm();
        }
        // The job stays down until the broker aborted its pre-committed transactions.
        try (KafkaTransactions cluster =
                KafkaTransactions.connect(TestKafka.bootstrap(), Map.of())) {
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (!cluster.open(topic).isEmpty()) {
                assertThat(System.nanoTime()).as("aborted within 60 s").isLessThan(deadline);
                java.util.concurrent.locks.LockSupport.parkNanos(50_000_000);
            }
        }

        assertThatThrownBy(
                        () ->
                                writePaced(
                                        shortTimeouts(
                                                "timed-out",
                                                RestartStrategy.fixedDelay(3, Duration.ZERO)),
                                        sink))
                .isInstanceOf(JobFailedException.class)
                .hasRootCauseInstanceOf(UnrecoverableException.class)
                .rootCause()
                .hasMessageContaining("LOST DATA")
                .hasMessageContaining("transaction.timeout.ms of 3000 ms")
                .hasMessageContaining("acceptLostTransactions");

        // Accepting the loss, the job goes on: what the lost transactions held is missing, once.
        writePaced(
                shortTimeouts("timed-out", RestartStrategy.fixedDelay(3, Duration.ZERO)),
                sink.acceptLostTransactions());
        List<String> committed = TestKafka.readCommitted(topic);
        assertThat(committed).doesNotHaveDuplicates().hasSizeLessThan(PACED);
    }

    private static final int PACED = 20_000;

    /** 1..PACED as text into {@code sink}, at 8,000 records/s, so checkpoints land mid-run. */
    private void writePaced(Pipeline pipeline, KafkaSink<String> sink) throws Exception {
        pipeline.source("numbers", Sources.sequence(1, PACED, 2, 8_000))
                .map(n -> Long.toString(n))
                .sink("out", sink);
        pipeline.run();
    }

    /** Checkpoints every 50 ms with a 1 s timeout, so a 3 s transaction timeout is allowed. */
    private Pipeline shortTimeouts(String name, RestartStrategy restarts) {
        return Pipeline.create(name)
                .parallelism(2)
                .checkpointing(
                        CheckpointConfig.exactlyOnce(Duration.ofMillis(50), temp.resolve("chk"))
                                .withTimeout(Duration.ofSeconds(1)))
                .restartStrategy(restarts);
    }

    @Test
    void withoutCheckpointsAnExactlyOnceSinkFailsBeforeTheBrokerAbortsItsTransaction() {
        String topic = TestKafka.newTopic("no-checkpoints", 1);
        Pipeline pipeline = Pipeline.create("no-checkpoints");
        pipeline.source("numbers", Sources.sequence(1, PACED, 1, 8_000))
                .map(n -> Long.toString(n))
                .sink("out", sink(topic).transactionTimeout(Duration.ofSeconds(1)));
        assertThatThrownBy(pipeline::run)
                .isInstanceOf(JobFailedException.class)
                .hasRootCauseInstanceOf(UnrecoverableException.class)
                .rootCause()
                .hasMessageContaining("no checkpoint barrier came")
                .hasMessageContaining("CheckpointConfig.exactlyOnce");
        assertThat(TestKafka.readCommitted(topic)).isEmpty();
    }
}
