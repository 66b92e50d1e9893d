package dev.weir.kafka;

import dev.weir.api.UnrecoverableException;
import dev.weir.api.function.Collector;
import dev.weir.api.source.ReadStatus;
import dev.weir.api.source.SourceContext;
import dev.weir.api.source.SourceReader;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Properties;
import java.util.Set;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.clients.consumer.OffsetOutOfRangeException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads one logical split of a {@link KafkaSource}: the partitions {@link SplitAssignment} gives
 * it, with its own consumer ({@code assign}, no group membership).
 *
 * <h2>How the methods are called</h2>
 *
 * On the source task's thread only (see {@link SourceReader}): {@link #restoreState} and {@link
 * #seek} on restore, then {@link #poll} repeatedly with {@link #position} and {@link
 * #snapshotState} between polls at barriers, and {@link #close}. The consumer is created at the
 * first poll. A poll never waits for records ({@code poll(Duration.ZERO)}); metadata and offset
 * look-ups wait at most the source's metadata timeout and are retried on later polls while they
 * fail, until the connect timeout.
 *
 * <h2>Progress</h2>
 *
 * {@code next} per partition is the offset after the last record emitted (not the consumer's fetch
 * position, which runs ahead): it is what a checkpoint keeps. Records fetched but not yet emitted
 * wait in {@link #pending} (one fetch at most), so a small {@code maxRecords} never drops them.
 */
final class KafkaSourceReader<T> implements SourceReader<T> {
    private static final Logger LOG = LoggerFactory.getLogger(KafkaSourceReader.class);

    /** Consumer properties the reader sets itself; users may not override them. */
    static final Set<String> OWNED_PROPERTIES =
            Set.of(
                    ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                    ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                    ConsumerConfig.GROUP_ID_CONFIG,
                    ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                    ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                    ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
                    ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG);

    private final KafkaSource.Settings<T> settings;
    private final int splitIndex;
    private final SourceContext context;
    private final String splitId;

    /** Partitions read or finished, in the order they were found. */
    private final Map<TopicPartition, Cursor> cursors = new LinkedHashMap<>();

    private boolean resolved;
    private KafkaConsumer<byte[], byte[]> consumer;
    private boolean assignmentChanged;
    private final ArrayDeque<Batch> pending = new ArrayDeque<>();
    private long nextDiscoveryNanos;
    private long unavailableSinceNanos = -1;
    private Map<TopicPartition, OffsetAndMetadata> previousSnapshot;

    /** One partition's progress: mutable, touched only by the task's thread. */
    private static final class Cursor {
        long next;
        final long stop;
        boolean finished;

        Cursor(long next, long stop) {
            this.next = next;
            this.stop = stop;
        }
    }

    /** Fetched records of one partition not yet emitted, with that partition's cursor. */
    private static final class Batch {
        final Cursor cursor;
        final List<ConsumerRecord<byte[], byte[]>> records;
        int next;

        Batch(Cursor cursor, List<ConsumerRecord<byte[], byte[]>> records) {
            this.cursor = cursor;
            this.records = records;
        }
    }

    KafkaSourceReader(KafkaSource.Settings<T> settings, int splitIndex, SourceContext context) {
        this.settings = settings;
        this.splitIndex = splitIndex;
        this.context = context;
        this.splitId = SplitAssignment.splitId(splitIndex, settings.splits());
    }

    @Override
    public ReadStatus poll(Collector<T> out, int maxRecords) throws Exception {
        if (consumer == null) {
            consumer = new KafkaConsumer<>(consumerProperties());
            assignmentChanged = true;
        }
        if (!resolved) {
            if (!metadataStep(this::resolveInitialPartitions)) {
                return ReadStatus.NOTHING_AVAILABLE;
            }
        } else if (!settings.bounded() && context.nanoTime() - nextDiscoveryNanos >= 0) {
            metadataStep(this::discoverNewPartitions);
        }
        if (assignmentChanged) {
            assign();
        }
        int emitted = drain(out, maxRecords);
        if (emitted < maxRecords && pending.isEmpty() && hasActivePartitions()) {
            ConsumerRecords<byte[], byte[]> records;
            try {
                records = consumer.poll(Duration.ZERO);
            } catch (OffsetOutOfRangeException e) {
                throw offsetsLost(e);
            }
            for (TopicPartition tp : records.partitions()) {
                Cursor cursor = cursors.get(tp);
                if (cursor != null) {
                    pending.add(new Batch(cursor, records.records(tp)));
                }
            }
            emitted += drain(out, maxRecords - emitted);
        }
        if (settings.bounded() && finishReachedPartitions()) {
            return ReadStatus.END_OF_INPUT;
        }
        return emitted > 0 ? ReadStatus.MORE_AVAILABLE : ReadStatus.NOTHING_AVAILABLE;
    }

    /** Emits pending records of partitions still read, up to {@code max}; returns how many. */
    private int drain(Collector<T> out, int max) throws Exception {
        int emitted = 0;
        while (emitted < max && !pending.isEmpty()) {
            Batch batch = pending.peek();
            if (batch.next >= batch.records.size()) {
                pending.poll();
                continue;
            }
            ConsumerRecord<byte[], byte[]> record = batch.records.get(batch.next++);
            Cursor cursor = batch.cursor;
            if (cursor.finished
                    || record.offset() < cursor.next
                    || (cursor.stop != ReaderState.UNBOUNDED && record.offset() >= cursor.stop)) {
                continue; // past a bounded partition's end
            }
            cursor.next = record.offset() + 1;
            if (emit(record, out)) {
                emitted++;
            }
        }
        while (!pending.isEmpty() && pending.peek().next >= pending.peek().records.size()) {
            pending.poll();
        }
        return emitted;
    }

    /**
     * The one place a record leaves the reader. Its timestamp ({@code record.timestamp()}, create
     * or log-append time per the topic's {@code message.timestamp.type}) is to be passed on here
     * once the core takes event time.
     */
    private boolean emit(ConsumerRecord<byte[], byte[]> record, Collector<T> out) throws Exception {
        T element = settings.deserializer().deserialize(record);
        if (element == null) {
            return false;
        }
        out.collect(element);
        return true;
    }

    /**
     * In bounded mode, marks partitions whose records up to their stop offset were all emitted (or
     * skipped as transaction markers and aborted records); returns true when none is left.
     */
    private boolean finishReachedPartitions() {
        boolean changed = false;
        for (Map.Entry<TopicPartition, Cursor> entry : cursors.entrySet()) {
            Cursor cursor = entry.getValue();
            if (cursor.finished) {
                continue;
            }
            boolean reached = cursor.next >= cursor.stop;
            if (!reached && pending.isEmpty()) {
                // Control records and aborted transactions advance the fetch position only.
                reached = consumer.position(entry.getKey(), Duration.ZERO) >= cursor.stop;
            }
            if (reached) {
                cursor.finished = true;
                cursor.next = Math.max(cursor.next, cursor.stop);
                changed = true;
            }
        }
        if (changed) {
            assignmentChanged = true;
            assign();
        }
        return !hasActivePartitions() && pending.isEmpty();
    }

    private boolean hasActivePartitions() {
        for (Cursor cursor : cursors.values()) {
            if (!cursor.finished) {
                return true;
            }
        }
        return false;
    }

    private List<TopicPartition> activePartitions() {
        List<TopicPartition> active = new ArrayList<>();
        for (Map.Entry<TopicPartition, Cursor> entry : cursors.entrySet()) {
            if (!entry.getValue().finished) {
                active.add(entry.getKey());
            }
        }
        return active;
    }

    /** Assigns the unfinished partitions and seeks each to its next offset. */
    private void assign() {
        List<TopicPartition> active = activePartitions();
        consumer.assign(active);
        for (TopicPartition tp : active) {
            consumer.seek(tp, cursors.get(tp).next);
        }
        pending.clear();
        assignmentChanged = false;
    }

    /** A metadata or offsets step that may time out: true if it ran to the end. */
    @FunctionalInterface
    private interface MetadataStep {
        void run() throws Exception;
    }

    private boolean metadataStep(MetadataStep step) throws Exception {
        try {
            step.run();
            unavailableSinceNanos = -1;
            return true;
        } catch (TimeoutException e) {
            long now = context.nanoTime();
            if (unavailableSinceNanos < 0) {
                unavailableSinceNanos = now;
            } else if (now - unavailableSinceNanos > settings.connectTimeoutMs() * 1_000_000) {
                throw new KafkaException(
                        "Kafka source split "
                                + splitId
                                + " has had no metadata from "
                                + settings.bootstrapServers()
                                + " for "
                                + settings.connectTimeoutMs()
                                + " ms ("
                                + e.getMessage()
                                + "); check that the brokers run and the bootstrap servers are"
                                + " right, or raise KafkaSource.connectTimeout(...)",
                        e);
            }
            return false;
        }
    }

    /** Chooses the split's partitions and where each starts; once per split, kept in state. */
    private void resolveInitialPartitions() {
        List<TopicPartition> mine = listOwnedPartitions();
        Map<TopicPartition, Long> starts = startOffsets(mine, settings.startingOffsets());
        Map<TopicPartition, Long> stops =
                settings.bounded() ? consumer.endOffsets(mine, metadataTimeout()) : Map.of();
        for (TopicPartition tp : mine) {
            long stop = settings.bounded() ? stops.get(tp) : ReaderState.UNBOUNDED;
            cursors.put(tp, new Cursor(starts.get(tp), stop));
        }
        if (settings.bounded()) {
            for (Cursor cursor : cursors.values()) {
                cursor.finished = cursor.next >= cursor.stop;
            }
        }
        if (settings.pattern() != null && mine.isEmpty() && splitIndex == 0) {
            LOG.warn(
                    "Kafka source: no partition of {} on {} belongs to split {} (is any topic"
                            + " matching?)",
                    settings.describeTopics(),
                    settings.bootstrapServers(),
                    splitId);
        }
        resolved = true;
        assignmentChanged = true;
        nextDiscoveryNanos = context.nanoTime() + settings.discoveryIntervalMs() * 1_000_000;
        LOG.info(
                "Kafka source split {} reads {} from {}",
                splitId,
                mine,
                settings.startingOffsets());
    }

    /** Adds partitions that appeared since (new, so read from their earliest offset). */
    private void discoverNewPartitions() {
        nextDiscoveryNanos = context.nanoTime() + settings.discoveryIntervalMs() * 1_000_000;
        List<TopicPartition> found = new ArrayList<>();
        for (TopicPartition tp : listOwnedPartitions()) {
            if (!cursors.containsKey(tp)) {
                found.add(tp);
            }
        }
        if (found.isEmpty()) {
            return;
        }
        Map<TopicPartition, Long> starts = consumer.beginningOffsets(found, metadataTimeout());
        for (TopicPartition tp : found) {
            cursors.put(tp, new Cursor(starts.get(tp), ReaderState.UNBOUNDED));
        }
        assignmentChanged = true;
        LOG.info("Kafka source split {} found new partitions {}", splitId, found);
    }

    private List<TopicPartition> listOwnedPartitions() {
        List<PartitionInfo> partitions = new ArrayList<>();
        if (settings.pattern() != null) {
            Pattern pattern = Pattern.compile(settings.pattern());
            for (Map.Entry<String, List<PartitionInfo>> topic :
                    consumer.listTopics(metadataTimeout()).entrySet()) {
                if (!topic.getKey().startsWith("__") && pattern.matcher(topic.getKey()).matches()) {
                    partitions.addAll(topic.getValue());
                }
            }
        } else {
            for (String topic : settings.topics()) {
                List<PartitionInfo> info = consumer.partitionsFor(topic, metadataTimeout());
                if (info == null || info.isEmpty()) {
                    throw new UnrecoverableException(
                            "Kafka topic '"
                                    + topic
                                    + "' does not exist on "
                                    + settings.bootstrapServers()
                                    + "; create it (kafka-topics.sh --create --topic "
                                    + topic
                                    + ") or fix the name given to KafkaSource");
                }
                partitions.addAll(info);
            }
        }
        List<TopicPartition> mine = new ArrayList<>();
        for (PartitionInfo info : partitions) {
            if (SplitAssignment.owner(info.topic(), info.partition(), settings.splits())
                    == splitIndex) {
                mine.add(new TopicPartition(info.topic(), info.partition()));
            }
        }
        mine.sort(
                java.util.Comparator.comparing(TopicPartition::topic)
                        .thenComparingInt(TopicPartition::partition));
        return mine;
    }

    private Map<TopicPartition, Long> startOffsets(
            List<TopicPartition> partitions, StartingOffsets from) {
        if (partitions.isEmpty()) {
            return Map.of();
        }
        if (from instanceof StartingOffsets.Latest) {
            return consumer.endOffsets(partitions, metadataTimeout());
        } else if (from instanceof StartingOffsets.Timestamp t) {
            return offsetsForTime(partitions, t.epochMillis());
        } else if (from instanceof StartingOffsets.Committed c) {
            return committedOffsets(partitions, c.fallback());
        }
        return consumer.beginningOffsets(partitions, metadataTimeout());
    }

    private Map<TopicPartition, Long> offsetsForTime(
            List<TopicPartition> partitions, long epochMillis) {
        Map<TopicPartition, Long> query = new HashMap<>();
        for (TopicPartition tp : partitions) {
            query.put(tp, epochMillis);
        }
        Map<TopicPartition, OffsetAndTimestamp> found =
                consumer.offsetsForTimes(query, metadataTimeout());
        Map<TopicPartition, Long> ends = consumer.endOffsets(partitions, metadataTimeout());
        Map<TopicPartition, Long> starts = new HashMap<>();
        for (TopicPartition tp : partitions) {
            OffsetAndTimestamp at = found.get(tp);
            starts.put(tp, at != null ? at.offset() : ends.get(tp));
        }
        return starts;
    }

    private Map<TopicPartition, Long> committedOffsets(
            List<TopicPartition> partitions, StartingOffsets fallback) {
        if (settings.groupId() == null) {
            throw new UnrecoverableException(
                    "KafkaSource starts from committed offsets but has no group id; set"
                            + " KafkaSource.groupId(...)");
        }
        Map<TopicPartition, OffsetAndMetadata> committed =
                consumer.committed(Set.copyOf(partitions), metadataTimeout());
        List<TopicPartition> missing = new ArrayList<>();
        Map<TopicPartition, Long> starts = new HashMap<>();
        for (TopicPartition tp : partitions) {
            OffsetAndMetadata offset = committed.get(tp);
            if (offset == null) {
                missing.add(tp);
            } else {
                starts.put(tp, offset.offset());
            }
        }
        starts.putAll(startOffsets(missing, fallback));
        return starts;
    }

    private Duration metadataTimeout() {
        return Duration.ofMillis(settings.metadataTimeoutMs());
    }

    private UnrecoverableException offsetsLost(OffsetOutOfRangeException e) {
        return new UnrecoverableException(
                "Kafka source split "
                        + splitId
                        + " cannot resume at "
                        + e.offsetOutOfRangePartitions()
                        + ": the broker no longer has those offsets (retention deleted records"
                        + " the checkpoint had not read yet, or the topic was recreated), so"
                        + " records are lost. Raise the topic's retention.ms above the job's"
                        + " longest downtime; to go on from what is left, start the job without"
                        + " its checkpoints (resume \"none\")",
                e);
    }

    private Properties consumerProperties() {
        Properties props = new Properties();
        props.putAll(settings.properties());
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, settings.bootstrapServers());
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
        props.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, "false");
        props.put(
                ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                settings.readCommitted() ? "read_committed" : "read_uncommitted");
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        props.putIfAbsent(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "2000");
        props.putIfAbsent(
                ConsumerConfig.METADATA_MAX_AGE_CONFIG,
                Long.toString(Math.max(1000, settings.discoveryIntervalMs())));
        props.putIfAbsent(ConsumerConfig.CLIENT_ID_CONFIG, "weir-" + splitId);
        if (settings.groupId() != null) {
            props.put(ConsumerConfig.GROUP_ID_CONFIG, settings.groupId());
            props.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic");
        }
        return props;
    }

    @Override
    public long position() {
        long sum = 0;
        for (Cursor cursor : cursors.values()) {
            sum += cursor.next;
        }
        return sum;
    }

    /**
     * Per partition still read: the end the consumer last heard of (its fetch position plus {@code
     * currentLag}, the high watermark or, read-committed, the last stable offset) minus the next
     * offset to emit, capped at a bounded partition's stop. No request to the cluster: -1 until the
     * consumer has fetched, or when no partition's end is known yet.
     */
    @Override
    public long lag() {
        if (consumer == null) {
            return -1;
        }
        long sum = -1;
        for (Map.Entry<TopicPartition, Cursor> entry : cursors.entrySet()) {
            Cursor cursor = entry.getValue();
            long lag;
            if (cursor.finished) {
                lag = 0;
            } else {
                long end = knownEnd(entry.getKey());
                if (end < 0) {
                    continue;
                }
                if (cursor.stop != ReaderState.UNBOUNDED) {
                    end = Math.min(end, cursor.stop);
                }
                lag = Math.max(0, end - cursor.next);
            }
            sum = Math.max(sum, 0) + lag;
        }
        return sum;
    }

    /** The partition's end as of the consumer's last fetch, or -1 if it has not fetched it. */
    private long knownEnd(TopicPartition partition) {
        try {
            OptionalLong behind = consumer.currentLag(partition);
            if (behind.isEmpty()) {
                return -1;
            }
            return consumer.position(partition, Duration.ZERO) + behind.getAsLong();
        } catch (IllegalStateException | TimeoutException notAssignedOrUnknown) {
            return -1;
        }
    }

    @Override
    public void seek(long position) {
        // The reader state holds each partition's offset; the position is only their sum.
        if (position != position()) {
            throw new IllegalStateException(
                    "Kafka split "
                            + splitId
                            + " restored position "
                            + position
                            + " does not match its reader state ("
                            + position()
                            + ")");
        }
    }

    @Override
    public byte[] snapshotState() {
        List<ReaderState.Partition> partitions = new ArrayList<>(cursors.size());
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        for (Map.Entry<TopicPartition, Cursor> entry : cursors.entrySet()) {
            TopicPartition tp = entry.getKey();
            Cursor cursor = entry.getValue();
            partitions.add(
                    new ReaderState.Partition(
                            tp.topic(), tp.partition(), cursor.next, cursor.stop));
            offsets.put(tp, new OffsetAndMetadata(cursor.next));
        }
        commitForMonitoring(offsets);
        return new ReaderState(resolved, partitions).toBytes();
    }

    /**
     * Commits, for monitoring, the offsets of the previous barrier: that checkpoint has completed
     * or failed by now (Weir triggers one checkpoint at a time by default), and a reader hears of
     * neither. Asynchronous; a failure is logged only.
     */
    private void commitForMonitoring(Map<TopicPartition, OffsetAndMetadata> offsets) {
        if (settings.groupId() == null || consumer == null) {
            return;
        }
        if (previousSnapshot != null && !previousSnapshot.isEmpty()) {
            consumer.commitAsync(
                    previousSnapshot,
                    (committed, error) -> {
                        if (error != null) {
                            LOG.debug("monitoring commit of {} failed", splitId, error);
                        }
                    });
        }
        previousSnapshot = offsets;
    }

    @Override
    public void restoreState(byte[] state) throws Exception {
        ReaderState restored = ReaderState.fromBytes(state);
        cursors.clear();
        for (ReaderState.Partition p : restored.partitions()) {
            Cursor cursor = new Cursor(p.next(), p.stop());
            cursor.finished = p.stop() != ReaderState.UNBOUNDED && p.next() >= p.stop();
            cursors.put(new TopicPartition(p.topic(), p.partition()), cursor);
        }
        resolved = restored.resolved();
        assignmentChanged = true;
        // Look for partitions created while the job was down at the first poll.
        nextDiscoveryNanos = context.nanoTime();
    }

    /** The partitions this reader reads or has read, for tests. */
    Collection<TopicPartition> partitions() {
        return List.copyOf(cursors.keySet());
    }

    @Override
    public void close() {
        if (consumer != null) {
            consumer.close(org.apache.kafka.clients.consumer.CloseOptions.timeout(Duration.ZERO));
            consumer = null;
        }
    }
}
