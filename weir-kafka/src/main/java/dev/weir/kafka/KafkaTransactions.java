package dev.weir.kafka;

import dev.weir.api.sink.JobInstance;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.ListTransactionsOptions;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The transactions of an exactly-once {@link KafkaSink} on one cluster: what they committed, which
 * are still open, and committing or aborting them from outside the writer that opened them. Used by
 * the sink's writers on recovery and by {@code weir kafka transactions}.
 *
 * <h2>Names</h2>
 *
 * A sink's transactional ids are {@code <prefix>:<subtask>:<slot>} (the prefix defaults to {@code
 * weir:<job>:<sink>}). Each transaction also commits, with {@code sendOffsetsToTransaction}, the
 * offset {@code <checkpoint id>} for partition 0 of the sink's topic in the consumer group {@code
 * <prefix>:<subtask>} — its <em>progress</em>: it becomes visible exactly when the transaction
 * commits, and reading it is not held up by other open transactions (a marker record in a topic
 * would be, behind the last stable offset). A subtask commits its transactions in checkpoint order,
 * so its progress is the newest checkpoint whose output it committed. The progress offset's
 * metadata also names the {@link JobInstance} that committed it.
 *
 * <h2>Owner</h2>
 *
 * A prefix belongs to one job instance (one checkpoint directory): the consumer group {@code
 * <prefix>:owner} holds its <em>claim</em>, an offset whose metadata names the instance, written
 * (outside any transaction) by the writers when they start and renewed while the job runs. A writer
 * of another instance refuses to start instead of fencing the owner's producers and aborting its
 * pre-committed transactions ({@link #owner}). Deleting the group releases the prefix.
 *
 * <p>Blocking: every method waits for the cluster, each request at most {@link #REQUEST_TIMEOUT}.
 * Not thread-safe.
 */
public final class KafkaTransactions implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(KafkaTransactions.class);

    /** Longest wait of one admin request. */
    public static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

    /** Metadata of a progress offset, so a person browsing groups sees what it is. */
    static final String PROGRESS_METADATA = "weir sink progress: checkpoint id";

    /** The suffix of the group holding the claim on a prefix. */
    static final String OWNER_SUFFIX = ":owner";

    private final String bootstrapServers;
    private final Map<String, String> properties;
    private final Admin admin;

    /** How re-committing a pre-committed transaction ended. */
    public enum Outcome {
        /** It was open, and this call committed it. */
        COMMITTED,
        /** Its subtask's progress shows it committed earlier. */
        ALREADY_COMMITTED,
        /** It was neither: the broker aborted it (its timeout passed) or another producer did. */
        LOST
    }

    private KafkaTransactions(String bootstrapServers, Map<String, String> properties) {
        this.bootstrapServers = bootstrapServers;
        this.properties = Map.copyOf(properties);
        Properties props = new Properties();
        props.putAll(clientProperties(properties, AdminClientConfig.configNames()));
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        this.admin = Admin.create(props);
    }

    /**
     * Connects to the cluster at {@code bootstrapServers}; {@code properties} are client settings
     * such as security (producer-only settings are ignored for the admin client).
     *
     * @param bootstrapServers Kafka's {@code bootstrap.servers}
     * @param properties client properties, as given to {@link KafkaSink#property}
     * @return a connection; close it when done
     */
    public static KafkaTransactions connect(
            String bootstrapServers, Map<String, String> properties) {
        return new KafkaTransactions(bootstrapServers, properties);
    }

    /** The transactional id of {@code slot} of {@code subtask}. */
    static String transactionalId(String prefix, int subtask, int slot) {
        return prefix + ":" + subtask + ":" + slot;
    }

    /**
     * The subtask that owns {@code transactionalId} under {@code prefix}.
     *
     * @param prefix a sink's transactional id prefix
     * @param transactionalId a transactional id, of this sink or not
     * @return the subtask index, or -1 if the id is not {@code <prefix>:<subtask>:<slot>}
     */
    public static int subtaskOf(String prefix, String transactionalId) {
        if (!transactionalId.startsWith(prefix + ":")) {
            return -1;
        }
        String[] rest = transactionalId.substring(prefix.length() + 1).split(":", -1);
        if (rest.length != 2 || !rest[0].matches("\\d{1,9}") || !rest[1].matches("\\d{1,9}")) {
            return -1; // another prefix that starts like ours
        }
        return Integer.parseInt(rest[0]);
    }

    /** The consumer group holding {@code subtask}'s progress. */
    static String progressGroup(String prefix, int subtask) {
        return prefix + ":" + subtask;
    }

    /** The offsets a transaction commits as its progress for {@code checkpointId}. */
    static Map<TopicPartition, OffsetAndMetadata> progressOffsets(String topic, long checkpointId) {
        return progressOffsets(topic, checkpointId, PROGRESS_METADATA);
    }

    /** As above, with {@code metadata} from {@link #progressMetadata}. */
    static Map<TopicPartition, OffsetAndMetadata> progressOffsets(
            String topic, long checkpointId, String metadata) {
        return Map.of(new TopicPartition(topic, 0), new OffsetAndMetadata(checkpointId, metadata));
    }

    /** The metadata of progress committed by {@code committer} (null: a job with no instance). */
    static String progressMetadata(JobInstance committer) {
        return committer == null
                ? PROGRESS_METADATA
                : InstanceMetadata.encode(committer, PROGRESS_METADATA);
    }

    /**
     * The consumer group holding the claim on {@code prefix}.
     *
     * @param prefix a sink's transactional id prefix
     * @return {@code <prefix>:owner}
     */
    public static String ownerGroup(String prefix) {
        return prefix + OWNER_SUFFIX;
    }

    /**
     * The job instance that claimed {@code prefix}: the one whose writers own its transactional ids
     * and progress groups.
     *
     * @param prefix a sink's transactional id prefix
     * @return the owner, or empty if nobody claimed the prefix (no writer of a Weir version that
     *     claims ran since its claim was deleted or expired)
     * @throws KafkaException if the cluster cannot be reached
     */
    public java.util.Optional<JobInstance> owner(String prefix) {
        for (OffsetAndMetadata offset : groupOffsets(ownerGroup(prefix)).values()) {
            if (offset != null) {
                java.util.Optional<JobInstance> owner = InstanceMetadata.decode(offset.metadata());
                if (owner.isPresent()) {
                    return owner;
                }
            }
        }
        return java.util.Optional.empty();
    }

    /**
     * Writes {@code owner}'s claim on {@code prefix} (replacing any), as the offset of partition 0
     * of {@code topic} in group {@code <prefix>:owner}; outside any transaction.
     */
    void claim(String prefix, String topic, JobInstance owner) {
        String group = ownerGroup(prefix);
        try {
            admin.alterConsumerGroupOffsets(
                            group,
                            Map.of(
                                    new TopicPartition(topic, 0),
                                    new OffsetAndMetadata(0, InstanceMetadata.encodeClaim(owner))))
                    .all()
                    .get(REQUEST_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            throw failure("write the claim on prefix " + prefix + " (group " + group + ")", e);
        }
    }

    /**
     * The job instance that committed {@code subtask}'s progress, if its metadata names one.
     *
     * @param prefix the sink's transactional id prefix
     * @param subtask the sink subtask
     * @return the instance, or empty (no progress, or written before Weir recorded instances)
     * @throws KafkaException if the cluster cannot be reached
     */
    public java.util.Optional<JobInstance> progressCommitter(String prefix, int subtask) {
        for (OffsetAndMetadata offset : groupOffsets(progressGroup(prefix, subtask)).values()) {
            if (offset != null) {
                return InstanceMetadata.decode(offset.metadata());
            }
        }
        return java.util.Optional.empty();
    }

    /** The committed offsets of {@code group}; empty if it does not exist. */
    private Map<TopicPartition, OffsetAndMetadata> groupOffsets(String group) {
        try {
            return admin.listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata()
                    .get(REQUEST_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof GroupIdNotFoundException) {
                return Map.of();
            }
            throw failure("read the consumer group " + group, e);
        } catch (Exception e) {
            throw failure("read the consumer group " + group, e);
        }
    }

    /**
     * The group metadata a transaction of {@code subtask} commits its progress under: that of a
     * consumer of group {@code <prefix>:<subtask>} that never joined it (generation -1, no member
     * id), which is what a standalone offset commit carries. Taken from a consumer because the
     * public constructor of {@link ConsumerGroupMetadata} is deprecated for removal; the consumer
     * is created and closed without contacting the cluster.
     */
    ConsumerGroupMetadata progressGroupMetadata(String prefix, int subtask) {
        Properties props = new Properties();
        props.putAll(clientProperties(properties, ConsumerConfig.configNames()));
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, progressGroup(prefix, subtask));
        props.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic");
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
            return consumer.groupMetadata();
        }
    }

    /**
     * The newest checkpoint {@code subtask} committed output for.
     *
     * @param prefix the sink's transactional id prefix
     * @param subtask the sink subtask
     * @return the checkpoint id, or -1 if none is recorded
     * @throws KafkaException if the cluster cannot be reached
     */
    public long committedCheckpoint(String prefix, int subtask) {
        Map<TopicPartition, OffsetAndMetadata> offsets =
                groupOffsets(progressGroup(prefix, subtask));
        long newest = -1;
        for (OffsetAndMetadata offset : offsets.values()) {
            if (offset != null) {
                newest = Math.max(newest, offset.offset());
            }
        }
        return newest;
    }

    /**
     * Per subtask, the newest checkpoint it committed output for, for every subtask of prefix.
     *
     * @param prefix the sink's transactional id prefix
     * @return checkpoint ids by subtask; subtasks with no recorded progress are absent
     * @throws KafkaException if the cluster cannot be reached
     */
    public Map<Integer, Long> committedCheckpoints(String prefix) {
        Map<Integer, Long> progress = new HashMap<>();
        for (int subtask : progressSubtasks(prefix)) {
            long id = committedCheckpoint(prefix, subtask);
            if (id >= 0) {
                progress.put(subtask, id);
            }
        }
        return progress;
    }

    private List<Integer> progressSubtasks(String prefix) {
        Collection<GroupListing> groups;
        try {
            groups =
                    admin.listGroups().all().get(REQUEST_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            throw failure("list consumer groups", e);
        }
        List<Integer> subtasks = new ArrayList<>();
        for (GroupListing group : groups) {
            String id = group.groupId();
            if (id.startsWith(prefix + ":")
                    && id.substring(prefix.length() + 1).matches("\\d{1,9}")) {
                subtasks.add(Integer.parseInt(id.substring(prefix.length() + 1)));
            }
        }
        return subtasks;
    }

    /**
     * Forgets the progress of {@code subtasks} (a fresh start by request).
     *
     * @param prefix the sink's transactional id prefix
     * @param subtasks the subtasks whose progress groups are deleted; others are kept
     * @throws KafkaException if the cluster cannot be reached
     */
    public void forgetProgress(String prefix, Collection<Integer> subtasks) {
        List<String> groups = new ArrayList<>();
        for (int subtask : progressSubtasks(prefix)) {
            if (subtasks.contains(subtask)) {
                groups.add(progressGroup(prefix, subtask));
            }
        }
        if (groups.isEmpty()) {
            return;
        }
        try {
            admin.deleteConsumerGroups(groups)
                    .all()
                    .get(REQUEST_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof GroupIdNotFoundException)) {
                throw failure("delete the progress groups " + groups, e);
            }
        } catch (Exception e) {
            throw failure("delete the progress groups " + groups, e);
        }
    }

    /**
     * The open ({@code Ongoing}) transactions whose id is one of {@code prefix}'s.
     *
     * @param prefix the sink's transactional id prefix
     * @return the open transactions, sorted by transactional id
     * @throws KafkaException if the cluster cannot be reached
     */
    public List<TransactionListing> open(String prefix) {
        return listed(prefix, List.of(TransactionState.ONGOING));
    }

    private List<TransactionListing> listed(String prefix, List<TransactionState> states) {
        Collection<TransactionListing> listed;
        try {
            listed =
                    admin.listTransactions(new ListTransactionsOptions().filterStates(states))
                            .all()
                            .get(REQUEST_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            throw failure("list open transactions", e);
        }
        List<TransactionListing> ours = new ArrayList<>();
        for (TransactionListing listing : listed) {
            if (subtaskOf(prefix, listing.transactionalId()) >= 0) {
                ours.add(listing);
            }
        }
        ours.sort(java.util.Comparator.comparing(TransactionListing::transactionalId));
        return ours;
    }

    /**
     * What the coordinator knows of each of {@code transactionalIds}.
     *
     * @param transactionalIds the transactional ids
     * @return the coordinator's description of each, by transactional id
     * @throws KafkaException if the cluster cannot be reached
     */
    public Map<String, TransactionDescription> describe(Collection<String> transactionalIds) {
        if (transactionalIds.isEmpty()) {
            return Map.of();
        }
        try {
            return admin.describeTransactions(transactionalIds)
                    .all()
                    .get(REQUEST_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            throw failure("describe transactions " + transactionalIds, e);
        }
    }

    /**
     * Aborts the open transaction of {@code transactionalId}, if any, and fences every producer
     * still using it: {@code initTransactions()} under that id, which bumps its epoch.
     *
     * @param transactionalId the transactional id to fence
     * @throws KafkaException if the cluster cannot be reached
     */
    public void abort(String transactionalId) {
        try (KafkaProducer<byte[], byte[]> producer = producer(transactionalId, 0)) {
            producer.initTransactions();
        }
        LOG.info("aborted (fenced) transactional id {}", transactionalId);
    }

    /**
     * Commits the pre-committed transaction {@code committable} of a sink whose prefix is {@code
     * prefix}, unless its subtask's progress shows it committed already. Never aborts anything.
     *
     * @param committable the transaction, as a checkpoint holds it
     * @param prefix the sink's transactional id prefix
     * @return how it ended: committed now, committed before, or lost (aborted by the broker)
     * @throws KafkaException if the cluster cannot be reached (retriable: try again later)
     */
    public Outcome commit(KafkaCommittable committable, String prefix) {
        if (committedCheckpoint(prefix, committable.subtask()) >= committable.checkpointId()) {
            return Outcome.ALREADY_COMMITTED;
        }
        KafkaProducer<byte[], byte[]> producer =
                producer(committable.transactionalId(), committable.timeoutMillis());
        try {
            producer.partitionsFor(
                    committable.topic()); // connects: learns the cluster's transaction version
            TransactionResumer.resume(producer, committable.producerId(), committable.epoch());
            producer.commitTransaction();
            return Outcome.COMMITTED;
        } catch (RetriableException e) {
            throw e;
        } catch (KafkaException e) {
            // Fenced or gone: committed before (its progress may still be on its way), or
            // aborted. Progress tells which.
            for (int attempt = 0; attempt < 20; attempt++) {
                if (committedCheckpoint(prefix, committable.subtask())
                        >= committable.checkpointId()) {
                    return Outcome.ALREADY_COMMITTED;
                }
                sleepQuietly(100);
            }
            LOG.debug("re-commit of {} failed", committable, e);
            return Outcome.LOST;
        } finally {
            // Never gracefully: a graceful close aborts a transaction still open.
            producer.close(Duration.ZERO);
        }
    }

    /** A transactional producer of this cluster under {@code transactionalId}. */
    KafkaProducer<byte[], byte[]> producer(String transactionalId, long timeoutMillis) {
        Properties props = new Properties();
        props.putAll(properties);
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        if (timeoutMillis > 0) {
            props.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, Long.toString(timeoutMillis));
        }
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        return new KafkaProducer<>(props);
    }

    /** The admin client, for the sink's start-up checks. */
    Admin admin() {
        return admin;
    }

    /** The settings of {@code properties} that a client with {@code names} takes. */
    private static Map<String, String> clientProperties(
            Map<String, String> properties, java.util.Set<String> names) {
        Map<String, String> taken = new HashMap<>();
        for (Map.Entry<String, String> e : properties.entrySet()) {
            if (names.contains(e.getKey())) {
                taken.put(e.getKey(), e.getValue());
            }
        }
        return taken;
    }

    private KafkaException failure(String what, Exception e) {
        if (e instanceof InterruptedException) {
            Thread.currentThread().interrupt();
        }
        Throwable cause =
                e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
        return new KafkaException(
                "could not " + what + " on Kafka at " + bootstrapServers + ": " + cause, cause);
    }

    private static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        admin.close(Duration.ofSeconds(5));
    }
}
