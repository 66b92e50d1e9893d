package dev.weir.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.kafka.testkit.BrokerProcess;
import dev.weir.testing.ChildJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The broker fails under a running Kafka-to-Kafka job (in a child JVM, with a restart strategy):
 * SIGKILL and restart of the broker process in the middle of transactions, and a broker paused
 * (SIGSTOP) for longer than the clients' request timeout. The job finishes and a read_committed
 * consumer sees every record exactly once, with no transaction left open.
 */
class BrokerFailureIT {
    static final int N = 30_000;
    static final String REQUEST_TIMEOUT_MS = "3000";
    static BrokerProcess broker;
    @TempDir static Path brokerDir;
    @TempDir Path dir;

    @BeforeAll
    static void startBroker() throws Exception {
        broker =
                BrokerProcess.start(
                        brokerDir,
                        BrokerProcess.thisClassPath(),
                        Map.of(
                                "transaction.abort.timed.out.transaction.cleanup.interval.ms",
                                "1000"));
    }

    @AfterAll
    static void stopBroker() throws Exception {
        broker.close();
    }

    private String[] topicsWithInput(String name) {
        String input = name + "-in";
        String output = name + "-out";
        TestKafka.createTopic(broker.bootstrapServers(), input, 4);
        TestKafka.createTopic(broker.bootstrapServers(), output, 2);
        List<String> values = new ArrayList<>();
        for (int i = 1; i <= N; i++) {
            values.add(Integer.toString(i));
        }
        produce(input, values);
        return new String[] {input, output};
    }

    private static void produce(String topic, List<String> values) {
        java.util.Properties props = new java.util.Properties();
        props.put("bootstrap.servers", broker.bootstrapServers());
        props.put(
                "key.serializer", org.apache.kafka.common.serialization.ByteArraySerializer.class);
        props.put(
                "value.serializer",
                org.apache.kafka.common.serialization.ByteArraySerializer.class);
        props.put("max.in.flight.requests.per.connection", "1");
        java.util.concurrent.atomic.AtomicReference<Exception> failed =
                new java.util.concurrent.atomic.AtomicReference<>();
        try (var producer =
                new org.apache.kafka.clients.producer.KafkaProducer<byte[], byte[]>(props)) {
            for (String v : values) {
                producer.send(
                        new org.apache.kafka.clients.producer.ProducerRecord<>(
                                topic, TestKafka.utf8(v)),
                        (metadata, error) -> {
                            if (error != null) {
                                failed.compareAndSet(null, error);
                            }
                        });
            }
            producer.flush();
        }
        if (failed.get() != null) {
            throw new IllegalStateException(
                    "could not produce the input of " + topic, failed.get());
        }
    }

    private Process startJob(String[] topics) throws Exception {
        return ChildJvm.start(
                KafkaCrashChild.class,
                null,
                dir.resolve("child.log").toFile(),
                broker.bootstrapServers(),
                topics[0],
                topics[1],
                dir.resolve("chk").toString(),
                REQUEST_TIMEOUT_MS);
    }

    /** Waits until the job committed output of at least {@code checkpoints} checkpoints. */
    private void awaitProgress(String prefix, long checkpoints) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        try (KafkaTransactions cluster =
                KafkaTransactions.connect(broker.bootstrapServers(), Map.of())) {
            while (cluster.committedCheckpoints(prefix).values().stream()
                            .mapToLong(Long::longValue)
                            .max()
                            .orElse(-1)
                    < checkpoints) {
                assertThat(System.nanoTime()).as("progress within 60 s").isLessThan(deadline);
                java.util.concurrent.locks.LockSupport.parkNanos(20_000_000);
            }
        }
    }

    private void assertFinishedExactlyOnce(Process job, String output) throws Exception {
        assertThat(job.waitFor(240, TimeUnit.SECONDS)).as("the job finished").isTrue();
        String log = Files.readString(dir.resolve("child.log"));
        assertThat(job.exitValue()).as(log).isZero();
        assertThat(TestKafka.awaitStable(broker.bootstrapServers(), output, Duration.ofSeconds(30)))
                .isTrue();
        List<String> committed = TestKafka.read(broker.bootstrapServers(), output, true);
        assertThat(committed).as(log).doesNotHaveDuplicates().hasSize(N);
        try (KafkaTransactions cluster =
                KafkaTransactions.connect(broker.bootstrapServers(), Map.of())) {
            assertThat(cluster.open(output)).isEmpty();
        }
    }

    @Test
    void aBrokerKilledAndRestartedMidTransactionLosesAndDuplicatesNothing() throws Exception {
        String[] topics = topicsWithInput("killed");
        Process job = startJob(topics);
        awaitProgress(topics[1], 5);
        broker.kill();
        broker.restart();
        assertFinishedExactlyOnce(job, topics[1]);
    }

    @Test
    void aBrokerPausedLongerThanTheRequestTimeoutLosesAndDuplicatesNothing() throws Exception {
        String[] topics = topicsWithInput("paused");
        Process job = startJob(topics);
        awaitProgress(topics[1], 5);
        broker.pause();
        try {
            // Twice the clients' request.timeout.ms: requests in flight time out.
            Thread.sleep(2 * Long.parseLong(REQUEST_TIMEOUT_MS));
        } finally {
            broker.resume();
        }
        assertFinishedExactlyOnce(job, topics[1]);
    }
}
