package dev.weir.kafka;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;
import org.apache.kafka.common.utils.Exit;

/**
 * One real KRaft broker in the test JVM, started on first use and shared by every test class of the
 * module (surefire runs them in one JVM), closed when the JVM exits. Topic names come from {@link
 * #newTopic}, so tests never meet each other's data.
 */
final class TestKafka {
    private static KafkaClusterTestKit cluster;
    private static final AtomicInteger TOPICS = new AtomicInteger();

    private TestKafka() {}

    /** The broker's bootstrap servers; starts it on first use (about 6 s). */
    static synchronized String bootstrap() {
        if (cluster == null) {
            try {
                cluster = start();
            } catch (Exception e) {
                throw new IllegalStateException("could not start the test Kafka broker", e);
            }
            KafkaClusterTestKit started = cluster;
            Runtime.getRuntime()
                    .addShutdownHook(
                            new Thread(
                                    () -> {
                                        try {
                                            started.close();
                                        } catch (Exception e) {
                                            // the JVM is exiting
                                        }
                                    }));
        }
        return cluster.bootstrapServers();
    }

    /**
     * At JVM exit the test kit's own shutdown hook deletes the broker's directories while ours
     * still closes the broker; the broker then finds its metadata log directory failed and halts
     * the JVM with status 1, which fails a surefire run whose tests all passed. A halt while the
     * JVM exits anyway is ignored; any other still halts.
     */
    private static void ignoreHaltsAtExit() {
        Exit.setHaltProcedure(
                (status, message) -> {
                    if (!exiting()) {
                        Runtime.getRuntime().halt(status);
                    }
                });
    }

    /** Whether the JVM is running its shutdown hooks. */
    private static boolean exiting() {
        Thread probe = new Thread(() -> {});
        try {
            Runtime.getRuntime().addShutdownHook(probe);
        } catch (IllegalStateException e) {
            return true;
        }
        Runtime.getRuntime().removeShutdownHook(probe);
        return false;
    }

    private static KafkaClusterTestKit start() throws Exception {
        ignoreHaltsAtExit();
        KafkaClusterTestKit kit =
                new KafkaClusterTestKit.Builder(
                                new TestKitNodes.Builder()
                                        .setCombined(true)
                                        .setNumBrokerNodes(1)
                                        .setNumControllerNodes(1)
                                        .build())
                        .setConfigProp("offsets.topic.replication.factor", "1")
                        .setConfigProp("offsets.topic.num.partitions", "1")
                        .setConfigProp("transaction.state.log.replication.factor", "1")
                        .setConfigProp("transaction.state.log.min.isr", "1")
                        .setConfigProp("transaction.state.log.num.partitions", "1")
                        .setConfigProp("group.initial.rebalance.delay.ms", "0")
                        .setConfigProp("auto.create.topics.enable", "false")
                        .setConfigProp(
                                "transaction.abort.timed.out.transaction.cleanup.interval.ms",
                                "1000")
                        .build();
        kit.format();
        kit.startup();
        kit.waitForReadyBrokers();
        return kit;
    }

    /** A topic of this test run with a new name. */
    static String newTopic(String prefix, int partitions) {
        String name = prefix + "-" + TOPICS.incrementAndGet();
        createTopic(bootstrap(), name, partitions);
        return name;
    }

    static void createTopic(String bootstrap, String name, int partitions) {
        try (Admin admin = admin(bootstrap)) {
            admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1))).all().get();
        } catch (Exception e) {
            throw new IllegalStateException("could not create topic " + name, e);
        }
    }

    static void addPartitions(String topic, int total) {
        try (Admin admin = admin(bootstrap())) {
            admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(total))).all().get();
        } catch (Exception e) {
            throw new IllegalStateException("could not add partitions to " + topic, e);
        }
    }

    static Admin admin(String bootstrap) {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        return Admin.create(props);
    }

    /**
     * Writes {@code values} as UTF-8 into {@code partition}, in order, without a transaction, and
     * fails unless every record was acknowledged: a test's input must be all there. One request in
     * flight and a long request timeout: on a loaded machine a timed-out first batch retried behind
     * later ones is refused as out of order, and its records would be missing.
     */
    static void produce(String topic, int partition, List<String> values) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        props.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        props.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1");
        props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "120000");
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "300000");
        List<java.util.concurrent.Future<?>> sent = new ArrayList<>(values.size());
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
            for (String value : values) {
                sent.add(
                        producer.send(
                                new ProducerRecord<>(
                                        topic,
                                        partition,
                                        null,
                                        value.getBytes(StandardCharsets.UTF_8))));
            }
            producer.flush();
            for (java.util.concurrent.Future<?> future : sent) {
                future.get();
            }
        } catch (Exception e) {
            throw new IllegalStateException("could not produce the input of " + topic, e);
        }
    }

    /**
     * Every committed record of {@code topic}, as UTF-8, once no transaction holds the topic back
     * (commit markers are written after {@code commitTransaction} returns), or after 15 s what a
     * {@code read_committed} consumer sees then.
     */
    static List<String> readCommitted(String topic) {
        awaitStable(bootstrap(), topic, Duration.ofSeconds(15));
        return read(bootstrap(), topic, true);
    }

    /** What a {@code read_committed} consumer of {@code topic} sees at once. */
    static List<String> readCommittedNow(String topic) {
        return read(bootstrap(), topic, true);
    }

    /**
     * Waits until no transaction of {@code prefix} is between its commit or abort and the markers
     * that make it visible ({@code PrepareCommit} or {@code PrepareAbort}), at most 15 s: what a
     * {@code read_committed} consumer sees then changes only when a transaction ends.
     */
    static void awaitNoMarkersInFlight(String prefix) throws Exception {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
        try (Admin admin = Admin.create(props)) {
            while (true) {
                boolean inFlight =
                        admin
                                .listTransactions(
                                        new org.apache.kafka.clients.admin.ListTransactionsOptions()
                                                .filterStates(
                                                        List.of(
                                                                org.apache.kafka.clients.admin
                                                                        .TransactionState
                                                                        .PREPARE_COMMIT,
                                                                org.apache.kafka.clients.admin
                                                                        .TransactionState
                                                                        .PREPARE_ABORT)))
                                .all()
                                .get()
                                .stream()
                                .anyMatch(t -> t.transactionalId().startsWith(prefix));
                if (!inFlight || System.nanoTime() > deadline) {
                    return;
                }
                java.util.concurrent.locks.LockSupport.parkNanos(20_000_000);
            }
        }
    }

    /**
     * Waits until every partition's last stable offset reached its end (no open transaction and no
     * commit marker in flight), at most {@code timeout}; returns whether it did.
     */
    static boolean awaitStable(String bootstrap, String topic, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        do {
            if (endOffsets(bootstrap, topic, true).equals(endOffsets(bootstrap, topic, false))) {
                return true;
            }
            java.util.concurrent.locks.LockSupport.parkNanos(20_000_000);
        } while (System.nanoTime() < deadline);
        return false;
    }

    static Map<TopicPartition, Long> endOffsets(String bootstrap, String topic, boolean committed) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        props.put(
                ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                committed ? "read_committed" : "read_uncommitted");
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
            List<TopicPartition> partitions = new ArrayList<>();
            for (PartitionInfo info : consumer.partitionsFor(topic, Duration.ofSeconds(30))) {
                partitions.add(new TopicPartition(topic, info.partition()));
            }
            return consumer.endOffsets(partitions, Duration.ofSeconds(30));
        }
    }

    /** Like {@link #readCommitted} with the isolation level chosen. */
    static List<String> read(String bootstrap, String topic, boolean committed) {
        List<String> values = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> record : records(bootstrap, topic, committed)) {
            values.add(new String(record.value(), StandardCharsets.UTF_8));
        }
        return values;
    }

    /** Every record of {@code topic} up to its current end (last stable offset if committed). */
    static List<ConsumerRecord<byte[], byte[]>> records(
            String bootstrap, String topic, boolean committed) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        props.put(
                ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                committed ? "read_committed" : "read_uncommitted");
        List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
            List<TopicPartition> partitions = new ArrayList<>();
            for (PartitionInfo info : consumer.partitionsFor(topic, Duration.ofSeconds(30))) {
                partitions.add(new TopicPartition(topic, info.partition()));
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (!reachedEnds(consumer, ends)) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("could not read " + topic + " to its end");
                }
                consumer.poll(Duration.ofMillis(100)).forEach(out::add);
            }
        }
        return out;
    }

    private static boolean reachedEnds(
            KafkaConsumer<byte[], byte[]> consumer, Map<TopicPartition, Long> ends) {
        for (Map.Entry<TopicPartition, Long> end : ends.entrySet()) {
            if (consumer.position(end.getKey()) < end.getValue()) {
                return false;
            }
        }
        return true;
    }

    /** UTF-8 bytes. */
    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
