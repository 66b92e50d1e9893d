package dev.weir.verify;

import dev.weir.api.codec.Codecs;
import dev.weir.api.sink.Sink;
import dev.weir.api.source.Source;
import dev.weir.kafka.KafkaDeserializer;
import dev.weir.kafka.KafkaSerializer;
import dev.weir.kafka.KafkaSink;
import dev.weir.kafka.KafkaSource;
import dev.weir.kafka.KafkaTransactions;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TransactionListing;
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

/**
 * Kafka for {@code weir verify}: the input topic ({@code --source kafka}, laid out like the durable
 * log's six partitions of growing size), the output topic of each round ({@code --sink kafka}, a
 * new topic and transactional id prefix per round, since a round is a new job), reading what a
 * {@code read_committed} consumer sees, and the job's open transactions.
 */
final class KafkaVerify {
    /** The input topic. */
    static final String INPUT_TOPIC = "weir-verify-input";

    /** Partitions of an output topic. */
    static final int OUTPUT_PARTITIONS = 2;

    private KafkaVerify() {}

    /**
     * The class path of a child broker: {@code -Dweir.kafka.broker.classpath}, else this JVM's
     * class path if it holds the broker (tests), else {@code weir-verify/target/kafka-broker}
     * (copied by the build) found from the working directory or from this class's jar.
     */
    static String brokerClassPath() {
        String set = System.getProperty("weir.kafka.broker.classpath");
        if (set != null && !set.isBlank()) {
            return set;
        }
        try {
            Class.forName("kafka.Kafka", false, KafkaVerify.class.getClassLoader());
            return System.getProperty("java.class.path");
        } catch (ClassNotFoundException e) {
            // not on this class path: look for the copied jars
        }
        List<Path> candidates = new ArrayList<>();
        candidates.add(Path.of("weir-verify", "target", "kafka-broker"));
        try {
            Path jar =
                    Path.of(
                            KafkaVerify.class
                                    .getProtectionDomain()
                                    .getCodeSource()
                                    .getLocation()
                                    .toURI());
            // <repo>/weir-cli/target/weir-cli.jar or <repo>/weir-verify/target/classes
            Path repo = jar.getParent().getParent().getParent();
            candidates.add(repo.resolve("weir-verify").resolve("target").resolve("kafka-broker"));
        } catch (Exception e) {
            // no code source: only the working directory
        }
        for (Path dir : candidates) {
            if (Files.isDirectory(dir)) {
                try (Stream<Path> jars = Files.list(dir)) {
                    List<String> paths =
                            jars.filter(p -> p.toString().endsWith(".jar"))
                                    .map(Path::toString)
                                    .sorted()
                                    .toList();
                    if (!paths.isEmpty()) {
                        return String.join(File.pathSeparator, paths);
                    }
                } catch (IOException e) {
                    // try the next
                }
            }
        }
        throw new IllegalStateException(
                "no Kafka broker jars found to start a broker: build them with"
                        + " 'mvn -pl weir-verify -am package -DskipTests' (they go to"
                        + " weir-verify/target/kafka-broker), set -Dweir.kafka.broker.classpath,"
                        + " or give a running cluster with --kafka-bootstrap");
    }

    static Admin admin(String bootstrap) {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        return Admin.create(props);
    }

    static void createTopic(String bootstrap, String topic, int partitions) throws Exception {
        try (Admin admin = admin(bootstrap)) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1)))
                    .all()
                    .get(60, TimeUnit.SECONDS);
        }
    }

    /** Writes record numbers 1..n into the input topic: key's records in its log partition. */
    static void writeInput(String bootstrap, long n, int keys, long seed) throws Exception {
        try (Admin admin = admin(bootstrap)) {
            if (admin.listTopics().names().get(60, TimeUnit.SECONDS).contains(INPUT_TOPIC)) {
                admin.deleteTopics(List.of(INPUT_TOPIC)).all().get(60, TimeUnit.SECONDS);
                while (admin.listTopics().names().get(60, TimeUnit.SECONDS).contains(INPUT_TOPIC)) {
                    Thread.sleep(100);
                }
            }
        }
        createTopic(bootstrap, INPUT_TOPIC, VerifyInput.LOG_PARTITIONS);
        int[] order = VerifyJob.keyOrder(seed, keys);
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        props.put(ProducerConfig.LINGER_MS_CONFIG, "20");
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
            for (long i = 1; i <= n; i++) {
                int partition = VerifyInput.logPartition(VerifyJob.input(i, order).key(), keys);
                producer.send(
                        new ProducerRecord<>(INPUT_TOPIC, partition, null, Codecs.LONG.toBytes(i)));
            }
            producer.flush();
        }
    }

    /**
     * The job's source: the input topic, one split per partition (each split reads one partition of
     * the six, so splits end apart as the partitions' sizes differ), bounded.
     */
    static Source<Long> source(String bootstrap) {
        return KafkaSource.topics(bootstrap, KafkaDeserializer.codec(Codecs.LONG), INPUT_TOPIC)
                .splitCount(VerifyInput.LOG_PARTITIONS)
                .bounded();
    }

    /** The job's sink: keyed by the update's key, so a key's updates stay in order. */
    static Sink<String> sink(String bootstrap, String topic) {
        return KafkaSink.to(
                        bootstrap,
                        topic,
                        KafkaSerializer.<String>keyed(
                                line -> KafkaSerializer.utf8(line.substring(0, line.indexOf(','))),
                                KafkaSerializer::utf8))
                .transactionalIdPrefix(topic);
    }

    /** Every record of {@code topic} a read_committed consumer sees now, partition by partition. */
    static List<String> committed(String bootstrap, String topic) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        List<String> lines = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
            List<TopicPartition> partitions = new ArrayList<>();
            for (PartitionInfo info : consumer.partitionsFor(topic, Duration.ofSeconds(30))) {
                partitions.add(new TopicPartition(topic, info.partition()));
            }
            partitions.sort(java.util.Comparator.comparingInt(TopicPartition::partition));

            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> ends =
                    consumer.endOffsets(partitions, Duration.ofSeconds(30));
            // A key's updates are in one partition, in order; partitions may interleave.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (!reached(consumer, ends)) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("could not read " + topic + " to its end");
                }
                for (ConsumerRecord<byte[], byte[]> record :
                        consumer.poll(Duration.ofMillis(200))) {
                    TopicPartition tp = new TopicPartition(record.topic(), record.partition());
                    if (record.offset() < ends.get(tp)) {
                        lines.add(new String(record.value(), StandardCharsets.UTF_8));
                    }
                }
            }
        }
        return lines;
    }

    private static boolean reached(
            KafkaConsumer<byte[], byte[]> consumer, Map<TopicPartition, Long> ends) {
        for (Map.Entry<TopicPartition, Long> end : ends.entrySet()) {
            if (consumer.position(end.getKey(), Duration.ofSeconds(30)) < end.getValue()) {
                return false;
            }
        }
        return true;
    }

    /** The open transactions of the sink whose prefix is {@code topic}. */
    static List<String> pending(String bootstrap, String topic) {
        try (KafkaTransactions cluster = KafkaTransactions.connect(bootstrap, Map.of())) {
            return cluster.open(topic).stream()
                    .map(TransactionListing::transactionalId)
                    .map(id -> "open transaction " + id)
                    .toList();
        }
    }
}
