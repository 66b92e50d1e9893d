package dev.weir.kafka;

import dev.weir.api.Guarantee;
import dev.weir.api.codec.Codec;
import dev.weir.api.sink.SinkContext;
import dev.weir.api.sink.TransactionalWriter;
import dev.weir.api.sink.TwoPhaseCommitSink;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.clients.producer.ProducerConfig;

/**
 * Writes to a Kafka topic: exactly-once with Kafka transactions (the default), at-least-once, or
 * with no guarantee.
 *
 * <pre>{@code
 * stream.sink("totals", KafkaSink.to("localhost:9092", "totals", KafkaSerializer.keyed(
 *         t -> KafkaSerializer.utf8(t.key()), t -> KafkaSerializer.utf8(t.toString()))));
 * }</pre>
 *
 * <h2>Exactly-once</h2>
 *
 * Each sink subtask writes the records between two checkpoint barriers into one Kafka transaction.
 * At the barrier it flushes them and records the transaction (transactional id, producer id, epoch)
 * in the checkpoint — Kafka has no "prepare", so a flushed, open transaction is the pre-commit —
 * and goes on in a new transaction of another producer of its small pool. Once the checkpoint is
 * complete the transaction commits. After a restart, the restored transactions are committed by
 * resuming them from the checkpoint's producer id and epoch ({@link KafkaTransactions#commit});
 * then every other open transaction of the sink that the restarted subtask owns is aborted and its
 * producers fenced. Transactional ids are {@code <prefix>:<subtask>:<slot>}, the prefix {@code
 * weir:<job>:<sink>} by default: it must be unique among the jobs sharing a cluster, like any
 * {@code transactional.id}. Readers must use {@code read_committed}; they see a checkpoint's
 * records when it commits, so end-to-end latency is about the checkpoint interval.
 *
 * <h2>One prefix, one job</h2>
 *
 * A job's identity is its checkpoint directory ({@link
 * dev.weir.api.sink.SinkContext#jobInstanceId()}): every run on it — restarts, a process started
 * again, another parallelism — is the same job and recovers its own transactions. When its writers
 * start they claim the prefix for that job (consumer group {@code <prefix>:owner}, see {@link
 * KafkaTransactions#owner}), before they abort or fence anything. A different job with the same job
 * and sink names — two copies of a service, a test and a production deployment, each with its own
 * checkpoint directory — would share the default prefix, fence the first job's producers and abort
 * its pre-committed transactions: its writers refuse to start instead ({@link
 * dev.weir.api.UnrecoverableException}), naming both jobs' directories, the prefix and the fixes:
 * {@link #transactionalIdPrefix} with a prefix unique on the cluster, the first job's checkpoint
 * directory if it is the same job, or releasing the claim ({@code kafka-consumer-groups.sh --delete
 * --group '<prefix>:owner'}) if the first job is gone for good (for example when continuing it from
 * a savepoint on a new checkpoint directory). Progress offsets also name the job instance that
 * committed them, so output of another job is never taken for a lost checkpoint of this one.
 * Without a checkpoint directory (checkpointing off, the Flink runner) nothing is claimed, but the
 * writers still refuse a prefix another job claimed, before they abort anything. A claim is taken
 * over (with a warning) only when its owner provably does not run: it ran on this host, its
 * checkpoint directory there no longer holds it, and no transaction of the prefix is open on the
 * cluster.
 *
 * <p>Each transaction also commits its checkpoint id as the offset of a consumer group {@code
 * <prefix>:<subtask>} ({@link KafkaTransactions}): a restarted job that finds output committed for
 * a checkpoint newer than the one it restored refuses to run instead of writing it twice.
 *
 * <h2>Timeouts</h2>
 *
 * The broker aborts a transaction older than the producer's {@code transaction.timeout.ms} ({@link
 * #transactionTimeout(Duration)}, default 15 minutes). Weir refuses to start a job whose
 * transaction timeout is not above checkpoint interval + checkpoint timeout + the restart
 * strategy's longest delay, and a sink whose transaction timeout is above the broker's {@code
 * transaction.max.timeout.ms} (default 15 minutes). A job down for longer than the transaction
 * timeout loses the pre-committed transactions of its last checkpoint: the restart reports that
 * loudly and fails ({@link #acceptLostTransactions()} lets it go on).
 *
 * @param <T> element type
 */
public final class KafkaSink<T> implements TwoPhaseCommitSink<T, KafkaCommittable> {
    private static final long serialVersionUID = 1L;

    /** What the sink promises. */
    public enum Mode {
        /** Kafka transactions committed with checkpoints: each record once, to read_committed. */
        EXACTLY_ONCE,
        /** An idempotent producer flushed at each barrier: nothing lost, replays write again. */
        AT_LEAST_ONCE,
        /** Sent and forgotten: a failure may lose buffered records and replays write again. */
        NONE
    }

    /** Producer properties the sink sets itself. */
    static final Set<String> OWNED_PROPERTIES =
            Set.of(
                    ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                    ProducerConfig.TRANSACTIONAL_ID_CONFIG,
                    ProducerConfig.TRANSACTION_TIMEOUT_CONFIG,
                    ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
                    ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
                    ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG);

    /** The default {@code transaction.timeout.ms}: the broker's default maximum. */
    public static final Duration DEFAULT_TRANSACTION_TIMEOUT = Duration.ofMinutes(15);

    /** Everything the writers need. */
    private final Settings<T> settings;

    /**
     * Immutable, serialisable settings.
     *
     * @param bootstrapServers Kafka's {@code bootstrap.servers}
     * @param topic the topic records go to unless the serializer names another
     * @param serializer element to record
     * @param mode the guarantee
     * @param transactionTimeoutMs the producer's {@code transaction.timeout.ms}
     * @param transactionalIdPrefix prefix of transactional ids, or null for the default
     * @param acceptLostTransactions go on after reporting a lost pre-committed transaction
     * @param properties other producer properties
     */
    record Settings<T>(
            String bootstrapServers,
            String topic,
            KafkaSerializer<T> serializer,
            Mode mode,
            long transactionTimeoutMs,
            String transactionalIdPrefix,
            boolean acceptLostTransactions,
            TreeMap<String, String> properties)
            implements java.io.Serializable {
        private static final long serialVersionUID = 1L;

        Settings {
            Objects.requireNonNull(bootstrapServers, "bootstrapServers");
            Objects.requireNonNull(topic, "topic");
            Objects.requireNonNull(serializer, "serializer");
            Objects.requireNonNull(mode, "mode");
            properties = new TreeMap<>(properties);
        }

        /** The transactional id prefix of the sink in {@code context}. */
        String prefix(SinkContext context) {
            return transactionalIdPrefix != null
                    ? transactionalIdPrefix
                    : defaultPrefix(context.jobName(), context.sinkName());
        }
    }

    private KafkaSink(Settings<T> settings) {
        this.settings = settings;
    }

    /**
     * An exactly-once sink writing to {@code topic} on the cluster at {@code bootstrapServers}. The
     * topic must exist when the job starts.
     *
     * @param <T> element type
     * @param bootstrapServers Kafka's {@code bootstrap.servers}, such as {@code localhost:9092}
     * @param topic the topic records go to unless the serializer names another
     * @param serializer turns each element into a record
     * @return the sink, exactly-once with a transaction timeout of 15 minutes
     * @throws IllegalArgumentException if {@code bootstrapServers} or {@code topic} is blank
     */
    public static <T> KafkaSink<T> to(
            String bootstrapServers, String topic, KafkaSerializer<T> serializer) {
        if (bootstrapServers == null || bootstrapServers.isBlank()) {
            throw new IllegalArgumentException("bootstrap servers must be given, e.g. host:9092");
        }
        if (topic == null || topic.isBlank()) {
            throw new IllegalArgumentException("the sink's topic must be given");
        }
        return new KafkaSink<>(
                new Settings<>(
                        bootstrapServers,
                        topic,
                        serializer,
                        Mode.EXACTLY_ONCE,
                        DEFAULT_TRANSACTION_TIMEOUT.toMillis(),
                        null,
                        false,
                        new TreeMap<>()));
    }

    /**
     * The default transactional id prefix of sink {@code sink} in job {@code job}.
     *
     * @param job the job's name
     * @param sink the sink's name in the job
     * @return {@code weir:<job>:<sink>}
     */
    public static String defaultPrefix(String job, String sink) {
        return "weir:" + job + ":" + sink;
    }

    private KafkaSink<T> with(
            Mode mode,
            long timeoutMs,
            String prefix,
            boolean acceptLost,
            TreeMap<String, String> properties) {
        return new KafkaSink<>(
                new Settings<>(
                        settings.bootstrapServers(),
                        settings.topic(),
                        settings.serializer(),
                        mode,
                        timeoutMs,
                        prefix,
                        acceptLost,
                        properties));
    }

    /**
     * The guarantee (default {@link Mode#EXACTLY_ONCE}).
     *
     * @param mode the guarantee; not null
     * @return a copy with this mode
     */
    public KafkaSink<T> mode(Mode mode) {
        Objects.requireNonNull(mode, "mode");
        Settings<T> s = settings;
        return with(
                mode,
                s.transactionTimeoutMs(),
                s.transactionalIdPrefix(),
                s.acceptLostTransactions(),
                s.properties());
    }

    /**
     * The producer's {@code transaction.timeout.ms} (default 15 minutes): how long the broker keeps
     * a transaction open. It must be above checkpoint interval + checkpoint timeout + the longest
     * restart delay (Weir checks at start), and at most the broker's {@code
     * transaction.max.timeout.ms} (checked when the writers start). A longer timeout survives
     * longer downtime; a crashed job's open transactions hold back read_committed readers of the
     * topic until it restarts or the timeout passes ({@code weir kafka transactions} ends them by
     * hand).
     *
     * @param timeout the transaction timeout, positive; sent in whole milliseconds
     * @return a copy with this timeout
     * @throws IllegalArgumentException if {@code timeout} is zero or negative
     */
    public KafkaSink<T> transactionTimeout(Duration timeout) {
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("the transaction timeout must be positive");
        }
        Settings<T> s = settings;
        return with(
                s.mode(),
                timeout.toMillis(),
                s.transactionalIdPrefix(),
                s.acceptLostTransactions(),
                s.properties());
    }

    /**
     * The prefix of the sink's transactional ids and progress groups (default {@code
     * weir:<job>:<sink>}). Two jobs writing to one cluster must not share it: each would abort the
     * other's transactions. The first job to run claims it for its checkpoint directory; a job on
     * another checkpoint directory refuses to start with the same prefix (see the class comment).
     * Set one when two deployments of a job (same job and sink names) write to one cluster, for
     * example {@code weir:<job>:<sink>:<deployment>}; keep it for the life of the job's checkpoints
     * (a run under another prefix leaves the old one's open transactions and progress behind).
     *
     * @param prefix the prefix, 1 to 200 characters
     * @return a copy with this prefix
     * @throws IllegalArgumentException if {@code prefix} is null, blank or too long
     */
    public KafkaSink<T> transactionalIdPrefix(String prefix) {
        if (prefix == null || prefix.isBlank() || prefix.length() > 200) {
            throw new IllegalArgumentException("the prefix must have 1 to 200 characters");
        }
        Settings<T> s = settings;
        return with(
                s.mode(),
                s.transactionTimeoutMs(),
                prefix,
                s.acceptLostTransactions(),
                s.properties());
    }

    /**
     * After a restart, reports a pre-committed transaction that the broker aborted (the job was
     * down longer than the transaction timeout) as lost data at ERROR level and goes on, instead of
     * failing the job. Its records are missing from the output for good: the source has moved past
     * them.
     *
     * @return a copy that goes on after lost transactions
     */
    public KafkaSink<T> acceptLostTransactions() {
        Settings<T> s = settings;
        return with(
                s.mode(),
                s.transactionTimeoutMs(),
                s.transactionalIdPrefix(),
                true,
                s.properties());
    }

    /**
     * Sets a producer property (security, {@code linger.ms}, {@code batch.size}, compression ...).
     * Properties the sink sets itself are refused: {@code bootstrap.servers}, {@code
     * transactional.id} (use {@link #transactionalIdPrefix}), {@code transaction.timeout.ms} (use
     * {@link #transactionTimeout}), {@code enable.idempotence} and the serialisers.
     *
     * @param key the producer property name
     * @param value its value; not null
     * @return a copy with the property set, replacing an earlier value of the same name
     * @throws IllegalArgumentException if the sink sets {@code key} itself
     */
    public KafkaSink<T> property(String key, String value) {
        if (OWNED_PROPERTIES.contains(key)) {
            throw new IllegalArgumentException(
                    "producer property '"
                            + key
                            + "' is set by the Kafka sink itself; see KafkaSink's methods");
        }
        Objects.requireNonNull(value, "value");
        TreeMap<String, String> properties = new TreeMap<>(settings.properties());
        properties.put(key, value);
        Settings<T> s = settings;
        return with(
                s.mode(),
                s.transactionTimeoutMs(),
                s.transactionalIdPrefix(),
                s.acceptLostTransactions(),
                properties);
    }

    /**
     * The producer properties set with {@link #property}.
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
    public Guarantee guarantee() {
        return switch (settings.mode()) {
            case EXACTLY_ONCE -> Guarantee.EXACTLY_ONCE;
            case AT_LEAST_ONCE -> Guarantee.AT_LEAST_ONCE;
            case NONE -> Guarantee.AT_MOST_ONCE;
        };
    }

    @Override
    public String limitation() {
        return switch (settings.mode()) {
            case EXACTLY_ONCE -> "";
            case AT_LEAST_ONCE ->
                    "Kafka sink in AT_LEAST_ONCE mode writes replayed records again after a"
                            + " failure; use KafkaSink.mode(Mode.EXACTLY_ONCE) (the default) and"
                            + " read_committed readers";
            case NONE ->
                    "Kafka sink in NONE mode may lose buffered records and write replayed ones"
                            + " again; use KafkaSink.mode(Mode.EXACTLY_ONCE) (the default)";
        };
    }

    @Override
    public Duration transactionTimeout() {
        return settings.mode() == Mode.EXACTLY_ONCE
                ? Duration.ofMillis(settings.transactionTimeoutMs())
                : Duration.ZERO;
    }

    /**
     * Flushes and commits wait for the brokers: the sink's subtasks get threads of their own.
     *
     * @return true
     */
    @Override
    public boolean isBlocking() {
        return true;
    }

    @Override
    public String transactionTimeoutSetting() {
        return "the producer's transaction.timeout.ms, set with KafkaSink.transactionTimeout";
    }

    @Override
    public Codec<KafkaCommittable> committableCodec() {
        return new KafkaCommittable.CommittableCodec();
    }

    @Override
    public TransactionalWriter<T, KafkaCommittable> createTransactionalWriter(SinkContext context) {
        return settings.mode() == Mode.EXACTLY_ONCE
                ? new ExactlyOnceWriter<>(settings, context)
                : new PlainWriter<>(settings, context);
    }

    @Override
    public String toString() {
        return "KafkaSink{"
                + settings.bootstrapServers()
                + ", "
                + settings.topic()
                + ", "
                + settings.mode()
                + "}";
    }
}
