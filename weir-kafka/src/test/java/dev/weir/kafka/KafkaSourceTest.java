package dev.weir.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.api.JobFailedException;
import dev.weir.api.JobHandle;
import dev.weir.api.Pipeline;
import dev.weir.api.UnrecoverableException;
import dev.weir.api.checkpoint.CheckpointConfig;
import dev.weir.api.function.Collector;
import dev.weir.api.sink.CollectSink;
import dev.weir.api.sink.Sinks;
import dev.weir.api.source.ReadStatus;
import dev.weir.api.source.Source;
import dev.weir.api.source.SourceContext;
import dev.weir.api.source.SourceReader;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CancellationException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Kafka source's own behaviour beyond the conformance suite, against a real broker. */
class KafkaSourceTest {
    @TempDir Path temp;

    /** A source context whose clock the test moves. */
    static final class ManualContext implements SourceContext {
        final AtomicLong nanos = new AtomicLong();

        @Override
        public int subtaskIndex() {
            return 0;
        }

        @Override
        public int parallelism() {
            return 1;
        }

        @Override
        public long nanoTime() {
            return nanos.get();
        }
    }

    /** Polls {@code reader} until it has emitted {@code count} elements (or ended). */
    static List<String> pollUntil(SourceReader<String> reader, int count) throws Exception {
        List<String> out = new ArrayList<>();
        Collector<String> collector = out::add;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (out.size() < count) {
            if (reader.poll(collector, 100) == ReadStatus.END_OF_INPUT) {
                break;
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("only " + out + " after 60 s");
            }
        }
        return out;
    }

    /** Polls a bounded reader to its end. */
    static List<String> readToEnd(SourceReader<String> reader) throws Exception {
        return pollUntil(reader, Integer.MAX_VALUE);
    }

    private static KafkaSource<String> source(String topic) {
        return KafkaSource.topics(TestKafka.bootstrap(), KafkaDeserializer.strings(), topic)
                .splitCount(1);
    }

    @Test
    void partitionsAddedWhileAJobRunsAreFoundAndReadFromTheirStart() throws Exception {
        String topic = TestKafka.newTopic("grow", 2);
        TestKafka.produce(topic, 0, List.of("a0", "a1"));
        TestKafka.produce(topic, 1, List.of("b0"));
        CollectSink<String> sink = Sinks.collect();
        Pipeline pipeline = Pipeline.create("grow").parallelism(2);
        pipeline.source(
                        "in",
                        KafkaSource.topics(
                                        TestKafka.bootstrap(), KafkaDeserializer.strings(), topic)
                                .splitCount(4)
                                .partitionDiscovery(Duration.ofMillis(100)))
                .sink("out", sink);
        JobHandle job = pipeline.start();
        awaitSize(sink, 3);
        // Records written before the partitions are found must be read too: they are new.
        TestKafka.addPartitions(topic, 4);
        TestKafka.produce(topic, 2, List.of("c0", "c1"));
        TestKafka.produce(topic, 3, List.of("d0"));
        awaitSize(sink, 6);
        job.cancel();
        assertThatThrownBy(job::await).isInstanceOf(CancellationException.class);
        assertThat(sink.results()).containsExactlyInAnyOrder("a0", "a1", "b0", "c0", "c1", "d0");
    }

    private static void awaitSize(CollectSink<String> sink, int size) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (sink.results().size() < size) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("saw only " + sink.results());
            }
            java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
        }
    }

    @Test
    void latestReadsOnlyWhatIsProducedAfterTheSplitChoseItsPartitions() throws Exception {
        String topic = TestKafka.newTopic("latest", 1);
        TestKafka.produce(topic, 0, List.of("old-1", "old-2"));
        ManualContext context = new ManualContext();
        try (SourceReader<String> reader =
                source(topic)
                        .startingAt(StartingOffsets.latest())
                        .openReader(SplitAssignment.splitId(0, 1), context)) {
            // Poll until the split chose its partition, at its end.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (((KafkaSourceReader<String>) reader).partitions().isEmpty()) {
                assertThat(reader.poll(e -> {}, 10)).isEqualTo(ReadStatus.NOTHING_AVAILABLE);
                assertThat(System.nanoTime()).isLessThan(deadline);
            }
            TestKafka.produce(topic, 0, List.of("new-1"));
            assertThat(pollUntil(reader, 1)).containsExactly("new-1");
        }
    }

    @Test
    void theReadersLagIsThePartitionsEndMinusWhatItEmitted() throws Exception {
        String topic = TestKafka.newTopic("lag", 1);
        TestKafka.produce(topic, 0, List.of("r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7"));
        try (SourceReader<String> reader =
                source(topic).openReader(SplitAssignment.splitId(0, 1), new ManualContext())) {
            assertThat(reader.lag()).isEqualTo(-1); // no consumer yet: unknown
            List<String> read = new ArrayList<>();
            Collector<String> out = read::add;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (read.size() < 3) {
                reader.poll(out, 3 - read.size());
                assertThat(System.nanoTime()).isLessThan(deadline);
            }
            assertThat(read).containsExactly("r0", "r1", "r2");
            assertThat(reader.lag()).isEqualTo(5);
            assertThat(pollUntil(reader, 5)).hasSize(5);
            assertThat(reader.lag()).isZero();
        }
    }

    @Test
    void aTimestampStartsAtTheFirstRecordAtOrAfterIt() throws Exception {
        String topic = TestKafka.newTopic("timestamp", 1);
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, TestKafka.bootstrap());
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
            for (long t = 1; t <= 4; t++) {
                producer.send(
                        new ProducerRecord<>(
                                topic, 0, t * 1000, null, TestKafka.utf8("at-" + t * 1000)));
            }
        }
        try (SourceReader<String> reader =
                source(topic)
                        .bounded()
                        .startingAt(StartingOffsets.timestamp(Instant.ofEpochMilli(2500)))
                        .openReader(SplitAssignment.splitId(0, 1), new ManualContext())) {
            assertThat(readToEnd(reader)).containsExactly("at-3000", "at-4000");
        }
    }

    @Test
    void committedOffsetsStartTheirPartitionsAndTheOthersFallBack() throws Exception {
        String topic = TestKafka.newTopic("committed", 2);
        TestKafka.produce(topic, 0, List.of("p0-0", "p0-1", "p0-2", "p0-3"));
        TestKafka.produce(topic, 1, List.of("p1-0", "p1-1"));
        String group = topic + "-group";
        try (Admin admin = TestKafka.admin(TestKafka.bootstrap())) {
            admin.alterConsumerGroupOffsets(
                            group, Map.of(new TopicPartition(topic, 0), new OffsetAndMetadata(3)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
        }
        try (SourceReader<String> reader =
                source(topic)
                        .bounded()
                        .groupId(group)
                        .startingAt(StartingOffsets.committed(StartingOffsets.earliest()))
                        .openReader(SplitAssignment.splitId(0, 1), new ManualContext())) {
            assertThat(readToEnd(reader)).containsExactlyInAnyOrder("p0-3", "p1-0", "p1-1");
        }
    }

    @Test
    void readCommittedSkipsAbortedTransactionsAndStopsBeforeAnOpenOne() throws Exception {
        String topic = TestKafka.newTopic("isolation", 1);
        TestKafka.produce(topic, 0, List.of("plain"));
        try (KafkaTransactions cluster =
                KafkaTransactions.connect(TestKafka.bootstrap(), Map.of())) {
            try (KafkaProducer<byte[], byte[]> aborted = cluster.producer(topic + "-a", 60_000)) {
                aborted.initTransactions();
                aborted.beginTransaction();
                aborted.send(new ProducerRecord<>(topic, TestKafka.utf8("aborted")));
                aborted.abortTransaction();
            }
            try (KafkaProducer<byte[], byte[]> committed = cluster.producer(topic + "-c", 60_000)) {
                committed.initTransactions();
                committed.beginTransaction();
                committed.send(new ProducerRecord<>(topic, TestKafka.utf8("committed")));
                committed.commitTransaction();
            }
            TestKafka.awaitStable(TestKafka.bootstrap(), topic, Duration.ofSeconds(15));
            KafkaProducer<byte[], byte[]> open = cluster.producer(topic + "-o", 60_000);
            open.initTransactions();
            open.beginTransaction();
            open.send(new ProducerRecord<>(topic, TestKafka.utf8("open")));
            open.flush();
            try (SourceReader<String> reader =
                    source(topic)
                            .bounded()
                            .openReader(SplitAssignment.splitId(0, 1), new ManualContext())) {
                assertThat(readToEnd(reader)).containsExactly("plain", "committed");
            } finally {
                open.close(Duration.ofSeconds(5)); // aborts
            }
        }
    }

    @Test
    void aMissingTopicFailsTheJobAtOnceNamingIt() {
        Pipeline pipeline =
                Pipeline.create("missing")
                        .checkpointing(
                                CheckpointConfig.exactlyOnce(
                                        Duration.ofMillis(50), temp.resolve("chk")));
        CollectSink<String> sink = Sinks.collect();
        pipeline.source("in", source("no-such-topic").bounded()).sink("out", sink);
        assertThatThrownBy(pipeline::run)
                .isInstanceOf(JobFailedException.class)
                .hasRootCauseInstanceOf(UnrecoverableException.class)
                .rootCause()
                .hasMessageContaining("'no-such-topic' does not exist")
                .hasMessageContaining("kafka-topics.sh --create --topic no-such-topic");
    }

    @Test
    void anUnreachableClusterFailsTheReaderAfterTheConnectTimeoutNamingTheServers()
            throws Exception {
        ManualContext context = new ManualContext();
        Source<String> source =
                KafkaSource.topics("127.0.0.1:1", KafkaDeserializer.strings(), "t")
                        .connectTimeout(Duration.ofSeconds(5));
        try (SourceReader<String> reader =
                source.openReader(SplitAssignment.splitId(0, 16), context)) {
            assertThat(reader.poll(e -> {}, 10)).isEqualTo(ReadStatus.NOTHING_AVAILABLE);
            context.nanos.addAndGet(Duration.ofSeconds(4).toNanos());
            assertThat(reader.poll(e -> {}, 10)).isEqualTo(ReadStatus.NOTHING_AVAILABLE);
            context.nanos.addAndGet(Duration.ofSeconds(2).toNanos());
            assertThatThrownBy(() -> reader.poll(e -> {}, 10))
                    .isInstanceOf(KafkaException.class)
                    .hasMessageContaining("127.0.0.1:1")
                    .hasMessageContaining("KafkaSource.connectTimeout");
        }
    }

    @Test
    void propertiesTheSourceDependsOnAreRefused() {
        KafkaSource<String> source = source("t");
        for (String owned :
                List.of(
                        "enable.auto.commit",
                        "group.id",
                        "isolation.level",
                        "auto.offset.reset",
                        "bootstrap.servers")) {
            assertThatThrownBy(() -> source.property(owned, "x"))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(owned);
        }
        assertThat(source.property("fetch.max.bytes", "1048576").properties())
                .containsEntry("fetch.max.bytes", "1048576");
    }

    @Test
    void theSplitCountOfACheckpointMustMatchTheSource() {
        assertThatThrownBy(
                        () ->
                                source("t")
                                        .splitCount(8)
                                        .openReader(
                                                SplitAssignment.splitId(0, 16),
                                                new ManualContext()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("16 splits, but this one has 8");
    }
}
