package dev.weir.bench;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
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

/**
 * What the three engines of the Kafka keyed sum share: the record layout, the input producers (all
 * at once before a throughput run, or paced during a latency run), and the measuring consumer that
 * reads the output {@code read_committed}, as a downstream user would.
 *
 * <p>Input record: key = the key {@code n % K} (8 bytes, big-endian), value = n (8 bytes), record
 * timestamp = when it was produced. Output record: key = the key, value = key, running sum and the
 * input record's timestamp (3 × 8 bytes). Every engine writes one output record per input record.
 */
final class KafkaBenchSupport {
    private KafkaBenchSupport() {}

    static byte[] longBytes(long value) {
        return ByteBuffer.allocate(8).putLong(value).array();
    }

    static long longOf(byte[] bytes) {
        return ByteBuffer.wrap(bytes).getLong();
    }

    /** The output value: key, sum, timestamp of the input record. */
    static byte[] outputValue(long key, long sum, long timestamp) {
        return ByteBuffer.allocate(24).putLong(key).putLong(sum).putLong(timestamp).array();
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

    static KafkaProducer<byte[], byte[]> producer(String bootstrap) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        props.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        props.put(ProducerConfig.BATCH_SIZE_CONFIG, "131072");
        return new KafkaProducer<>(props);
    }

    /** Writes records 1..n with key n % k: the input of a throughput run, before it starts. */
    static void produceAll(String bootstrap, String topic, long n, long k) {
        AtomicLong failures = new AtomicLong();
        try (KafkaProducer<byte[], byte[]> producer = producer(bootstrap)) {
            for (long i = 1; i <= n; i++) {
                producer.send(
                        new ProducerRecord<>(topic, longBytes(i % k), longBytes(i)),
                        (metadata, error) -> {
                            if (error != null) {
                                failures.incrementAndGet();
                            }
                        });
            }
            producer.flush();
        }
        if (failures.get() > 0) {
            throw new IllegalStateException(
                    failures.get() + " input records could not be produced into " + topic);
        }
    }

    /**
     * A thread writing records 1..n with key n % k at {@code perSecond}, each stamped with the time
     * it is sent: the input of a latency run, produced while the engine runs.
     */
    static Thread producePaced(String bootstrap, String topic, long n, long k, long perSecond) {
        Thread thread =
                new Thread(
                        () -> {
                            try (KafkaProducer<byte[], byte[]> producer = producer(bootstrap)) {
                                long start = System.nanoTime();
                                for (long i = 1; i <= n; i++) {
                                    long due = start + (i - 1) * 1_000_000_000L / perSecond;
                                    long wait = due - System.nanoTime();
                                    if (wait > 0) {
                                        java.util.concurrent.locks.LockSupport.parkNanos(wait);
                                    }
                                    producer.send(
                                            new ProducerRecord<>(
                                                    topic,
                                                    null,
                                                    System.currentTimeMillis(),
                                                    longBytes(i % k),
                                                    longBytes(i)));
                                }
                                producer.flush();
                            }
                        },
                        "paced-producer");
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    /** Expected final sum of key {@code key}: the sum of n ≤ N with n % K = key. */
    static long expectedSum(long n, long k, long key) {
        long first = key == 0 ? k : key;
        if (first > n) {
            return 0;
        }
        long count = (n - first) / k + 1;
        long last = first + (count - 1) * k;
        return (first + last) * count / 2;
    }

    /**
     * Reads the output topic read_committed from its start on a thread of its own until {@code
     * expected} records arrived: counts them, keeps each key's last sum, and measures each record's
     * latency from its input's production to now.
     */
    static final class MeasuringConsumer implements AutoCloseable {
        private final Thread thread;
        private final long expected;
        private final AtomicLong seen = new AtomicLong();
        private final long[] lastSum;
        private final long[] latencies;
        private int latencyCount;
        private final long measureFromMillis;
        private volatile long doneAtNanos;
        private volatile Throwable failure;
        private volatile boolean stop;

        /**
         * @param measureFromMillis input records stamped before this time (warm-up) do not count
         *     towards the latency percentiles
         */
        MeasuringConsumer(
                String bootstrap, String topic, long expected, long keys, long measureFromMillis) {
            this.expected = expected;
            this.lastSum = new long[(int) keys];
            this.measureFromMillis = measureFromMillis;
            this.latencies = new long[(int) Math.min(expected, 20_000_000)];
            this.thread = new Thread(() -> run(bootstrap, topic), "measuring-consumer");
            thread.setDaemon(true);
            thread.start();
        }

        private void run(String bootstrap, String topic) {
            Properties props = new Properties();
            props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
            props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
            props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
            props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "10000");
            try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
                List<TopicPartition> partitions = new ArrayList<>();
                for (PartitionInfo info : consumer.partitionsFor(topic, Duration.ofSeconds(60))) {
                    partitions.add(new TopicPartition(topic, info.partition()));
                }
                consumer.assign(partitions);
                consumer.seekToBeginning(partitions);
                while (!stop && seen.get() < expected) {
                    for (ConsumerRecord<byte[], byte[]> record :
                            consumer.poll(Duration.ofMillis(5))) {
                        long now = System.currentTimeMillis();
                        ByteBuffer value = ByteBuffer.wrap(record.value());
                        long key = value.getLong();
                        long sum = value.getLong();
                        long stamp = value.getLong();
                        lastSum[(int) key] = sum;
                        if (stamp >= measureFromMillis && latencyCount < latencies.length) {
                            latencies[latencyCount++] = now - stamp;
                        }
                        seen.incrementAndGet();
                    }
                }
                doneAtNanos = System.nanoTime();
            } catch (Throwable t) {
                failure = t;
            }
        }

        /** Waits until all expected records arrived; returns the time they had, in nanoTime. */
        long awaitAll(Duration timeout) throws InterruptedException {
            thread.join(timeout.toMillis());
            if (failure != null) {
                throw new IllegalStateException("the measuring consumer failed", failure);
            }
            if (thread.isAlive()) {
                throw new IllegalStateException(
                        "only "
                                + seen.get()
                                + " of "
                                + expected
                                + " output records after "
                                + timeout);
            }
            return doneAtNanos;
        }

        long seen() {
            return seen.get();
        }

        /** Fails unless every key's last sum is its expected final sum. */
        void checkSums(long n, long k) {
            for (long key = 0; key < Math.min(k, n + 1); key++) {
                long expect = expectedSum(n, k, key);
                if (expect == 0) {
                    continue;
                }
                long got = lastSum[(int) key];
                if (got != expect) {
                    throw new IllegalStateException(
                            "key " + key + ": final sum " + got + ", expected " + expect);
                }
            }
        }

        /** The {@code percent}-th percentile of the measured latencies, in ms. */
        long latencyPercentile(int percent) {
            if (latencyCount == 0) {
                return -1;
            }
            long[] sorted = Arrays.copyOf(latencies, latencyCount);
            Arrays.sort(sorted);
            int index = (int) Math.ceil(percent / 100.0 * sorted.length) - 1;
            return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
        }

        @Override
        public void close() throws InterruptedException {
            stop = true;
            thread.join(10_000);
        }
    }
}
