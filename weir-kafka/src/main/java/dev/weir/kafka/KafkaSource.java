package dev.weir.kafka;

import dev.weir.api.source.Source;
import dev.weir.api.source.SourceContext;
import dev.weir.api.source.SourceReader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Reads Kafka topics; replayable: the offsets live in Weir's checkpoints, so a restore resumes
 * every partition exactly after the last record the restored checkpoint covers.
 *
 * <pre>{@code
 * Source<String> orders = KafkaSource.topics("localhost:9092", KafkaDeserializer.strings(), "orders")
 *         .startingAt(StartingOffsets.earliest());
 * pipeline.source("orders", orders)...
 * }</pre>
 *
 * <h2>Splits and partitions</h2>
 *
 * The source has a fixed number of logical splits ({@link #splitCount(int)}, default {@value
 * #DEFAULT_SPLITS}), whatever the parallelism, so its checkpoints restore at any parallelism;
 * {@link SplitAssignment} says which split reads which partition. A split's reader assigns its
 * partitions to its own consumer with {@code assign} (no consumer group, no rebalancing), and in
 * unbounded mode lists the topics again every {@link #partitionDiscovery(Duration) discovery
 * interval}: a partition or (for a pattern) topic that appears later is read from its earliest
 * offset. At most as many subtasks as splits read at once: choose more splits than the most
 * subtasks the job will ever have. The split count is fixed for the life of the job's checkpoints.
 *
 * <h2>What a checkpoint holds</h2>
 *
 * Per partition the offset of the next record to emit (and in bounded mode the offset it stops at),
 * as the split's reader state; the split's {@code position} is only a summary (the sum of the next
 * offsets). If a group id is set, the offsets are also committed to Kafka for monitoring, never
 * read back except by {@link StartingOffsets#committed} on a start without checkpoint.
 *
 * <h2>Reading</h2>
 *
 * {@code read_committed} by default: records of aborted or still open transactions are never
 * emitted, so a Weir job reads another exactly-once job's output exactly once. The reader never
 * blocks its task for long: fetches are {@code poll(Duration.ZERO)} and metadata requests have a
 * short timeout, retried on later polls; if no metadata arrives for {@link
 * #connectTimeout(Duration)} the task fails, naming the bootstrap servers. A broker that goes away
 * while the job runs only pauses reading. An offset that the broker no longer has (retention
 * deleted the records the checkpoint points to) fails the job loudly: those records are lost.
 *
 * <p>Bounded mode ({@link #bounded()}) stops each partition at the end offset it had when the split
 * first chose its partitions (the last stable offset under {@code read_committed}), and does no
 * discovery; the bound is kept in the checkpoint, so a restored run stops at the same place.
 *
 * <p>Record timestamps: the core has no event time yet; the reader keeps each record's timestamp at
 * hand where it emits it (one place), to pass it on once the core can take it.
 *
 * @param <T> element type
 */
public final class KafkaSource<T> implements Source<T> {
    private static final long serialVersionUID = 1L;

    /** Splits of a source that sets none: enough for the parallelism of one machine. */
    public static final int DEFAULT_SPLITS = 16;

    /** Everything the readers need. */
    private final Settings<T> settings;

    /**
     * Everything a reader needs; immutable and serialisable.
     *
     * @param bootstrapServers Kafka's {@code bootstrap.servers}
     * @param topics topic names (empty when {@code pattern} is set)
     * @param pattern topic name pattern, or null
     * @param deserializer record to element
     * @param startingOffsets where partitions no checkpoint covers start
     * @param splits number of logical splits
     * @param bounded stop at the end offsets seen at start
     * @param discoveryIntervalMs how often unbounded readers look for new partitions
     * @param groupId group for monitoring commits and committed starting offsets, or null
     * @param readCommitted isolation level {@code read_committed}
     * @param metadataTimeoutMs longest wait of one metadata or offsets request in a poll
     * @param connectTimeoutMs how long metadata may stay unavailable before the task fails
     * @param properties other consumer properties
     */
    record Settings<T>(
            String bootstrapServers,
            List<String> topics,
            String pattern,
            KafkaDeserializer<T> deserializer,
            StartingOffsets startingOffsets,
            int splits,
            boolean bounded,
            long discoveryIntervalMs,
            String groupId,
            boolean readCommitted,
            long metadataTimeoutMs,
            long connectTimeoutMs,
            TreeMap<String, String> properties)
            implements java.io.Serializable {
        private static final long serialVersionUID = 1L;

        Settings {
            Objects.requireNonNull(bootstrapServers, "bootstrapServers");
            Objects.requireNonNull(deserializer, "deserializer");
            Objects.requireNonNull(startingOffsets, "startingOffsets");
            topics = List.copyOf(topics);
            properties = new TreeMap<>(properties);
        }

        /** A readable name of what is read, for messages. */
        String describeTopics() {
            return pattern != null ? "topics matching '" + pattern + "'" : "topics " + topics;
        }
    }

    private KafkaSource(Settings<T> settings) {
        this.settings = settings;
    }

    /**
     * Reads {@code topics} from the cluster at {@code bootstrapServers}, from the earliest offsets,
     * unbounded, in {@value #DEFAULT_SPLITS} splits.
     *
     * @param <T> element type
     * @param bootstrapServers Kafka's {@code bootstrap.servers}, such as {@code localhost:9092}
     * @param deserializer turns each record into an element
     * @param topics the topic names, at least one
     * @return the source
     * @throws IllegalArgumentException if no topic is named, a name is blank, or {@code
     *     bootstrapServers} is blank
     */
    public static <T> KafkaSource<T> topics(
            String bootstrapServers, KafkaDeserializer<T> deserializer, String... topics) {
        if (topics.length == 0) {
            throw new IllegalArgumentException("name at least one topic");
        }
        for (String topic : topics) {
            if (topic == null || topic.isBlank()) {
                throw new IllegalArgumentException("topic names must not be blank");
            }
        }
        return new KafkaSource<>(defaults(bootstrapServers, List.of(topics), null, deserializer));
    }

    /**
     * Reads every topic whose name matches {@code pattern} (internal topics, named {@code __...},
     * excluded), including topics created while the job runs (unbounded mode).
     *
     * @param <T> element type
     * @param bootstrapServers Kafka's {@code bootstrap.servers}, such as {@code localhost:9092}
     * @param pattern the topic name pattern; it must match a whole name. Only its text is kept, not
     *     its flags: write flags inline, such as {@code (?i)}
     * @param deserializer turns each record into an element
     * @return the source
     * @throws IllegalArgumentException if {@code bootstrapServers} is blank
     */
    public static <T> KafkaSource<T> pattern(
            String bootstrapServers, Pattern pattern, KafkaDeserializer<T> deserializer) {
        return new KafkaSource<>(
                defaults(bootstrapServers, List.of(), pattern.pattern(), deserializer));
    }

    private static <T> Settings<T> defaults(
            String bootstrapServers,
            List<String> topics,
            String pattern,
            KafkaDeserializer<T> deserializer) {
        if (bootstrapServers == null || bootstrapServers.isBlank()) {
            throw new IllegalArgumentException("bootstrap servers must be given, e.g. host:9092");
        }
        return new Settings<>(
                bootstrapServers,
                topics,
                pattern,
                deserializer,
                StartingOffsets.earliest(),
                DEFAULT_SPLITS,
                false,
                Duration.ofSeconds(30).toMillis(),
                null,
                true,
                200,
                Duration.ofSeconds(60).toMillis(),
                new TreeMap<>());
    }

    /** A copy of the settings to change one thing in; see the methods below. */
    private static final class Change<T> {
        String bootstrapServers;
        List<String> topics;
        String pattern;
        KafkaDeserializer<T> deserializer;
        StartingOffsets startingOffsets;
        int splits;
        boolean bounded;
        long discoveryIntervalMs;
        String groupId;
        boolean readCommitted;
        long metadataTimeoutMs;
        long connectTimeoutMs;
        TreeMap<String, String> properties;

        Change(Settings<T> s) {
            bootstrapServers = s.bootstrapServers();
            topics = s.topics();
            pattern = s.pattern();
            deserializer = s.deserializer();
            startingOffsets = s.startingOffsets();
            splits = s.splits();
            bounded = s.bounded();
            discoveryIntervalMs = s.discoveryIntervalMs();
            groupId = s.groupId();
            readCommitted = s.readCommitted();
            metadataTimeoutMs = s.metadataTimeoutMs();
            connectTimeoutMs = s.connectTimeoutMs();
            properties = new TreeMap<>(s.properties());
        }

        Settings<T> build() {
            return new Settings<>(
                    bootstrapServers,
                    topics,
                    pattern,
                    deserializer,
                    startingOffsets,
                    splits,
                    bounded,
                    discoveryIntervalMs,
                    groupId,
                    readCommitted,
                    metadataTimeoutMs,
                    connectTimeoutMs,
                    properties);
        }
    }

    private KafkaSource<T> with(java.util.function.Consumer<Change<T>> change) {
        Change<T> copy = new Change<>(settings);
        change.accept(copy);
        return new KafkaSource<>(copy.build());
    }

    /**
     * Where partitions that no checkpoint covers start (default earliest).
     *
     * @param offsets the starting offsets; not null
     * @return a copy with these starting offsets
     */
    public KafkaSource<T> startingAt(StartingOffsets offsets) {
        Objects.requireNonNull(offsets, "offsets");
        return with(c -> c.startingOffsets = offsets);
    }

    /**
     * The number of logical splits (default {@value #DEFAULT_SPLITS}): at most that many subtasks
     * read at once. Fixed for the life of the job's checkpoints.
     *
     * @param splits the number of splits, 1 to 10000
     * @return a copy with this split count
     * @throws IllegalArgumentException if {@code splits} is out of range
     */
    public KafkaSource<T> splitCount(int splits) {
        if (splits < 1 || splits > 10_000) {
            throw new IllegalArgumentException(
                    "a Kafka source needs 1..10000 splits, got " + splits);
        }
        return with(c -> c.splits = splits);
    }

    /**
     * Stops each partition at the end offset it had when its split first chose it, and finds no new
     * partitions: a job over what is in the topics now.
     *
     * @return a bounded copy
     */
    public KafkaSource<T> bounded() {
        return with(c -> c.bounded = true);
    }

    /**
     * How often unbounded readers look for new partitions and topics (default 30 s).
     *
     * @param interval the discovery interval, positive
     * @return a copy with this interval
     * @throws IllegalArgumentException if {@code interval} is zero or negative
     */
    public KafkaSource<T> partitionDiscovery(Duration interval) {
        if (interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("the discovery interval must be positive");
        }
        return with(c -> c.discoveryIntervalMs = interval.toMillis());
    }

    /**
     * A consumer group under which each reader commits the offsets of its partitions, for
     * monitoring tools (lag). Weir never reads them back for recovery; the checkpoint is the truth.
     * They are committed at the next checkpoint barrier after the one that recorded them, so they
     * trail the newest complete checkpoint by one (see docs/design/006-kafka.md). Default: none,
     * and nothing is committed.
     *
     * @param groupId the group id, or null to commit nothing
     * @return a copy with this group id
     * @throws IllegalArgumentException if {@code groupId} is blank
     */
    public KafkaSource<T> groupId(String groupId) {
        if (groupId != null && groupId.isBlank()) {
            throw new IllegalArgumentException("group id must not be blank");
        }
        return with(c -> c.groupId = groupId);
    }

    /**
     * Reads records of open and aborted transactions too ({@code read_uncommitted}). Only for
     * topics without transactional producers: otherwise the job sees output that was rolled back.
     *
     * @return a copy reading uncommitted records
     */
    public KafkaSource<T> readUncommitted() {
        return with(c -> c.readCommitted = false);
    }

    /**
     * How long metadata (partitions, offsets) may stay unavailable before the reading task fails
     * (default 60 s); the restart strategy then decides.
     *
     * @param timeout the connect timeout, positive
     * @return a copy with this timeout
     * @throws IllegalArgumentException if {@code timeout} is zero or negative
     */
    public KafkaSource<T> connectTimeout(Duration timeout) {
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("the connect timeout must be positive");
        }
        return with(c -> c.connectTimeoutMs = timeout.toMillis());
    }

    /**
     * Sets a consumer property (security, fetch sizes, ...). Properties Weir depends on are
     * refused: {@code enable.auto.commit}, {@code group.id} (use {@link #groupId}), {@code
     * isolation.level} (use {@link #readUncommitted}), {@code auto.offset.reset}, the deserialisers
     * and {@code bootstrap.servers}.
     *
     * @param key the consumer property name
     * @param value its value; not null
     * @return a copy with the property set, replacing an earlier value of the same name
     * @throws IllegalArgumentException if the source sets {@code key} itself
     */
    public KafkaSource<T> property(String key, String value) {
        if (KafkaSourceReader.OWNED_PROPERTIES.contains(key)) {
            throw new IllegalArgumentException(
                    "consumer property '"
                            + key
                            + "' is set by the Kafka source itself; see KafkaSource's methods");
        }
        Objects.requireNonNull(value, "value");
        return with(c -> c.properties.put(key, value));
    }

    /**
     * The consumer properties set with {@link #property}.
     *
     * @return an unmodifiable copy
     */
    public Map<String, String> properties() {
        return Map.copyOf(settings.properties());
    }

    Settings<T> settings() {
        return settings;
    }

    @Override
    public String kind() {
        return "kafka";
    }

    @Override
    public boolean isReplayable() {
        return true;
    }

    @Override
    public List<String> splits(int parallelism) {
        List<String> ids = new ArrayList<>(settings.splits());
        for (int i = 0; i < settings.splits(); i++) {
            ids.add(SplitAssignment.splitId(i, settings.splits()));
        }
        return ids;
    }

    @Override
    public SourceReader<T> openReader(String split, SourceContext context) {
        int[] parsed = SplitAssignment.parse(split);
        if (parsed[1] != settings.splits()) {
            throw new IllegalStateException(
                    "split "
                            + split
                            + " belongs to a Kafka source with "
                            + parsed[1]
                            + " splits, but this one has "
                            + settings.splits()
                            + "; the split count is fixed for the life of a job's checkpoints");
        }
        return new KafkaSourceReader<>(settings, parsed[0], context);
    }

    @Override
    public String toString() {
        return "KafkaSource{"
                + settings.bootstrapServers()
                + ", "
                + settings.describeTopics()
                + "}";
    }
}
