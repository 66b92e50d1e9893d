package dev.weir.kafka;

import dev.weir.api.UnrecoverableException;
import dev.weir.api.sink.JobInstance;
import dev.weir.api.sink.SinkContext;
import dev.weir.api.sink.TransactionalWriter;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.InvalidTxnTimeoutException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.utils.ProducerIdAndEpoch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The writer of one subtask of an exactly-once {@link KafkaSink}: a Kafka transaction per
 * checkpoint, from a small pool of transactional producers.
 *
 * <h2>How the methods are called</h2>
 *
 * On the sink task's thread only, as {@link TransactionalWriter} says: after a restore {@link
 * #commit} for each restored committable, then {@link #recoverOwned}; then {@link #write}, {@link
 * #prepareCommit} at barriers, {@link #commit} when checkpoints complete; {@link #close}.
 *
 * <h2>Producers</h2>
 *
 * A producer (transactional id {@code <prefix>:<subtask>:<slot>}) holds at most one transaction:
 * the open one, or a pre-committed one waiting for its checkpoint. The open transaction begins at
 * the first record after a barrier and commits into it, as its progress, the id of the checkpoint
 * expected next; {@code prepareCommit} corrects that id if the barrier's differs, flushes, and
 * parks the producer until {@code commit}, after which it returns to the idle pool. Slots are
 * numbered from 0 in each run, so a job's transactional ids stay few; none is initialised before
 * {@link #recoverOwned} ended, so the restart cannot abort a transaction it still has to commit. At
 * most {@link #MAX_PRODUCERS} producers: more would mean checkpoints stopped completing.
 *
 * <p>Closing: a producer holding a pre-committed transaction is closed with a zero timeout (a
 * graceful close aborts the transaction); the open, not yet pre-committed transaction is aborted,
 * so read_committed readers are not held up by it until its timeout.
 */
final class ExactlyOnceWriter<T> implements TransactionalWriter<T, KafkaCommittable> {
    private static final Logger LOG = LoggerFactory.getLogger(ExactlyOnceWriter.class);

    /** Producers of one subtask at most: the open transaction plus those awaiting commit. */
    static final int MAX_PRODUCERS = 32;

    private static final Duration ABORT_TIMEOUT = Duration.ofSeconds(5);

    /**
     * How often subtask 0 renews the claim on the prefix while the job runs, far below the brokers'
     * {@code offsets.retention.minutes} (7 days by default), after which the claim of a group
     * without members would expire.
     */
    static final long CLAIM_RENEWAL_MS = Duration.ofMinutes(10).toMillis();

    private final KafkaSink.Settings<T> settings;
    private final String sinkName;
    private final String jobName;
    private final int subtask;
    private final long restoredCheckpointId;
    private final String prefix;
    private final KafkaTransactions cluster;
    private final ArrayDeque<Slot> idle = new ArrayDeque<>();
    private final Map<String, Transaction> prepared = new LinkedHashMap<>();
    private final AtomicReference<Exception> sendError = new AtomicReference<>();

    /** Keeps the first failed send, which fails the next call. One instance: no allocation. */
    private final Callback onSent =
            (metadata, error) -> {
                if (error != null) {
                    sendError.compareAndSet(null, error);
                }
            };

    private final ConsumerGroupMetadata progressGroup;

    /** The job instance this writer runs in, or null if the runner gives it none. */
    private final JobInstance instance;

    /** The metadata of this writer's progress offsets: names {@link #instance}. */
    private final String progressMetadata;

    private boolean claimed;
    private long claimedAtMillis;
    private int slots;
    private Transaction open;
    private int writesSinceAgeCheck;

    /**
     * The checkpoint id of the progress the open transaction commits so far: sent when it begins,
     * as the id of the barrier expected next, so that the barrier's pre-commit waits for the broker
     * only to flush (the two round trips of {@code sendOffsetsToTransaction} were on the way from
     * barrier to commit, which is end-to-end latency). Sent again at the barrier if the id differs.
     */
    private long openProgress;

    /** The checkpoint id of the last pre-commit: the next barrier's is expected one higher. */
    private long lastPrepared;

    /** A producer and its transactional id. */
    private record Slot(String transactionalId, KafkaProducer<byte[], byte[]> producer) {}

    /** A transaction of a slot, with the wall-clock time of its first record. */
    private record Transaction(Slot slot, long startedAtMillis) {}

    ExactlyOnceWriter(KafkaSink.Settings<T> settings, SinkContext context) {
        try {
            TransactionResumer.requireCompatibleClient();
        } catch (IllegalStateException e) {
            throw new UnrecoverableException(e.getMessage(), e);
        }
        this.settings = settings;
        this.sinkName = context.sinkName();
        this.jobName = context.jobName();
        this.subtask = context.subtaskIndex();
        this.restoredCheckpointId = context.restoredCheckpointId();
        this.lastPrepared = restoredCheckpointId;
        this.prefix = settings.prefix(context);
        this.instance = JobInstance.of(context).orElse(null);
        this.progressMetadata = KafkaTransactions.progressMetadata(instance);
        this.cluster =
                KafkaTransactions.connect(settings.bootstrapServers(), settings.properties());
        try {
            SinkChecks.requireTopic(cluster, settings.topic(), sinkName);
            SinkChecks.requireTimeoutWithinBrokerMax(
                    cluster, settings.transactionTimeoutMs(), sinkName);
            this.progressGroup = cluster.progressGroupMetadata(prefix, subtask);
            // Before any commit or abort: refuse a prefix another job instance claimed. A job
            // without an instance id checks too (it would abort the owner's transactions), but
            // claims nothing.
            requireNotClaimedByAnother("is claimed by");
            if (instance == null) {
                LOG.debug(
                        "sink '{}': the job has no instance id (no checkpoint directory); prefix {}"
                                + " is not claimed",
                        sinkName,
                        prefix);
            }
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    @Override
    public void write(T record) throws Exception {
        failIfSendFailed();
        if (open == null) {
            Slot slot = takeSlot();
            slot.producer().beginTransaction();
            open = new Transaction(slot, System.currentTimeMillis());
            sendProgress(lastPrepared + 1);
        } else if ((++writesSinceAgeCheck & 4095) == 0) {
            failIfNoBarrierComes();
        }
        open.slot()
                .producer()
                .send(settings.serializer().serialize(record, settings.topic()), onSent);
    }

    /** Commits {@code checkpointId} as this subtask's progress in the open transaction. */
    private void sendProgress(long checkpointId) {
        open.slot()
                .producer()
                .sendOffsetsToTransaction(
                        KafkaTransactions.progressOffsets(
                                settings.topic(), checkpointId, progressMetadata),
                        progressGroup);
        openProgress = checkpointId;
    }

    /**
     * Fails before the broker aborts the open transaction for its age: a transaction that no
     * barrier pre-committed for 90% of its timeout means checkpoints are off or not completing, and
     * the broker would abort it with an error that does not say why.
     */
    private void failIfNoBarrierComes() {
        long age = System.currentTimeMillis() - open.startedAtMillis();
        if (age > settings.transactionTimeoutMs() / 10 * 9) {
            throw new UnrecoverableException(
                    "sink '"
                            + sinkName
                            + "': its open Kafka transaction is "
                            + age
                            + " ms old and no checkpoint barrier came; the broker aborts it at "
                            + settings.transactionTimeoutMs()
                            + " ms (transaction.timeout.ms). An exactly-once Kafka sink commits"
                            + " at checkpoints: enable them (Pipeline.checkpointing("
                            + "CheckpointConfig.exactlyOnce(...))), or use"
                            + " KafkaSink.mode(Mode.AT_LEAST_ONCE)");
        }
    }

    private void failIfSendFailed() {
        Exception error = sendError.get();
        if (error != null) {
            throw new KafkaException(
                    "sink '"
                            + sinkName
                            + "': a record sent to "
                            + settings.topic()
                            + " failed ("
                            + error
                            + "); the restart replays it from the last checkpoint",
                    error);
        }
    }

    @Override
    public KafkaCommittable prepareCommit(long checkpointId) throws Exception {
        lastPrepared = checkpointId; // the next transaction expects the barrier after this
        if (open == null) {
            return null;
        }
        KafkaProducer<byte[], byte[]> producer = open.slot().producer();
        if (openProgress != checkpointId) {
            sendProgress(checkpointId); // a barrier other than the expected one: the last wins
        }
        producer.flush();
        failIfSendFailed();
        ProducerIdAndEpoch ids = TransactionResumer.current(producer);
        KafkaCommittable committable =
                new KafkaCommittable(
                        open.slot().transactionalId(),
                        settings.topic(),
                        ids.producerId,
                        ids.epoch,
                        subtask,
                        checkpointId,
                        open.startedAtMillis(),
                        settings.transactionTimeoutMs());
        prepared.put(committable.transactionalId(), open);
        open = null;
        return committable;
    }

    @Override
    public void commit(KafkaCommittable committable) throws Exception {
        Transaction transaction = prepared.remove(committable.transactionalId());
        if (transaction != null) {
            transaction.slot().producer().commitTransaction();
            idle.push(transaction.slot());
            if (instance != null
                    && subtask == 0
                    && System.currentTimeMillis() - claimedAtMillis > CLAIM_RENEWAL_MS) {
                renewClaim();
            }
            return;
        }
        // Restored from a checkpoint: its producer is gone; resume it by id and epoch.
        KafkaTransactions.Outcome outcome = cluster.commit(committable, prefix);
        switch (outcome) {
            case COMMITTED ->
                    LOG.info(
                            "sink '{}': committed restored transaction {} of checkpoint {}",
                            sinkName,
                            committable.transactionalId(),
                            committable.checkpointId());
            case ALREADY_COMMITTED ->
                    LOG.debug(
                            "sink '{}': restored transaction {} was committed before",
                            sinkName,
                            committable.transactionalId());
            case LOST -> reportLost(committable);
        }
    }

    /**
     * A pre-committed transaction that a complete checkpoint holds was aborted: its records are
     * gone from the output for good. Loud: fail, unless the user accepted such losses.
     */
    private void reportLost(KafkaCommittable c) {
        long age = c.ageMillis(System.currentTimeMillis());
        String why =
                age > c.timeoutMillis()
                        ? "it started "
                                + age
                                + " ms ago, more than its transaction.timeout.ms of "
                                + c.timeoutMillis()
                                + " ms, so the broker aborted it while the job was down"
                        : "it is "
                                + age
                                + " ms old, within its transaction.timeout.ms of "
                                + c.timeoutMillis()
                                + " ms, so another producer with transactional id "
                                + c.transactionalId()
                                + " aborted it (another job with the same prefix, or weir kafka"
                                + " transactions abort)";
        String message =
                "sink '"
                        + sinkName
                        + "' LOST DATA: the pre-committed transaction "
                        + c.transactionalId()
                        + " (producer id "
                        + c.producerId()
                        + ", epoch "
                        + c.epoch()
                        + ") of subtask "
                        + c.subtask()
                        + " for checkpoint "
                        + c.checkpointId()
                        + " was aborted before Weir could commit it: "
                        + why
                        + ". Its records are missing from topic "
                        + settings.topic()
                        + " and the source has moved past them. "
                        + (age > c.timeoutMillis()
                                ? "The exactly-once guarantee was broken by downtime. Raise"
                                        + " KafkaSink.transactionTimeout (up to the brokers'"
                                        + " transaction.max.timeout.ms) above the longest"
                                        + " downtime"
                                : "Give every job writing to this cluster a transactional id"
                                        + " prefix of its own"
                                        + " (KafkaSink.transactionalIdPrefix), and end a job's"
                                        + " transactions by hand only when it will not be"
                                        + " restarted")
                        + "; to go on without those records, set"
                        + " KafkaSink.acceptLostTransactions()";
        if (settings.acceptLostTransactions()) {
            LOG.error(message);
            return;
        }
        throw new UnrecoverableException(message);
    }

    @Override
    public void recoverOwned(List<KafkaCommittable> committed, int owner, int parallelism)
            throws Exception {
        Set<String> restored = new HashSet<>();
        for (KafkaCommittable c : committed) {
            restored.add(c.transactionalId());
        }
        if (restoredCheckpointId >= 0) {
            refuseOutputNewerThanRestored(committed, owner, parallelism);
        }
        if (instance != null) {
            // Before aborting anything: the constructor found no other owner.
            claimPrefix(false);
        }
        for (TransactionListing listing : cluster.open(prefix)) {
            int j = KafkaTransactions.subtaskOf(prefix, listing.transactionalId());
            if (j % parallelism == owner && !restored.contains(listing.transactionalId())) {
                LOG.info(
                        "sink '{}': aborting lingering transaction {}",
                        sinkName,
                        listing.transactionalId());
                cluster.abort(listing.transactionalId());
            }
        }
        if (restoredCheckpointId == -1) {
            List<Integer> owned = new ArrayList<>();
            for (int j : cluster.committedCheckpoints(prefix).keySet()) {
                if (j % parallelism == owner) {
                    owned.add(j);
                }
            }
            cluster.forgetProgress(prefix, owned);
        }
    }

    /**
     * Throws if a subtask this writer owns committed output for a checkpoint newer than the one
     * restored, other than a restored committable (a final transaction has a reserved id above the
     * checkpoint that holds it): a newer checkpoint completed and was lost (invariant 11).
     */
    private void refuseOutputNewerThanRestored(
            List<KafkaCommittable> committed, int owner, int parallelism) {
        Set<String> restored = new HashSet<>();
        for (KafkaCommittable c : committed) {
            restored.add(c.subtask() + "@" + c.checkpointId());
        }
        for (Map.Entry<Integer, Long> progress : cluster.committedCheckpoints(prefix).entrySet()) {
            int j = progress.getKey();
            long id = progress.getValue();
            if (j % parallelism == owner
                    && id > restoredCheckpointId
                    && !restored.contains(j + "@" + id)) {
                throw new UnrecoverableException(refusal(j, id));
            }
        }
    }

    /**
     * Claims the prefix for this job instance, or refuses if another instance claimed it: two jobs
     * with the same job and sink names share the default prefix. Called once the restore's checks
     * passed and before this writer aborts or fences anything (so a job that refuses to run leaves
     * the claim alone); {@code checkFirst} false when the constructor just checked. Reads the claim
     * back after writing it, so of two jobs that claim at once the one whose claim was overwritten
     * refuses.
     */
    private void claimPrefix(boolean checkFirst) {
        if (checkFirst) {
            requireNotClaimedByAnother("is claimed by");
        }
        cluster.claim(prefix, settings.topic(), instance);
        requireNotClaimedByAnother("was claimed at the same time by");
        claimed = true;
        claimedAtMillis = System.currentTimeMillis();
    }

    /** Renews the claim; a cluster error only delays it (the claim lasts days). */
    private void renewClaim() {
        try {
            claimPrefix(true);
        } catch (UnrecoverableException e) {
            throw e; // another job claimed the prefix meanwhile
        } catch (KafkaException e) {
            LOG.warn("sink '{}': could not renew the claim on prefix {}: {}", sinkName, prefix, e);
            claimedAtMillis = System.currentTimeMillis();
        }
    }

    /**
     * Refuses if another job instance claimed the prefix. Never taken over automatically: nothing
     * on the cluster proves that the owner is not running (an idle owner has no open transaction,
     * and two containers with the same host name and their own volumes see different directories
     * under one path), so a job started over after its directory was deleted is told to release the
     * old claim by hand.
     */
    private void requireNotClaimedByAnother(String how) {
        JobInstance owner = cluster.owner(prefix).orElse(null);
        if (owner == null || isThisInstance(owner)) {
            return;
        }
        String gone =
                owner.isGoneFrom(instance != null ? instance.host() : JobInstance.thisHost())
                        ? " Its checkpoint directory on this host no longer holds it: if that job"
                                + " was deleted to start over, release its claim as below."
                        : "";
        throw new UnrecoverableException(sharedPrefix(owner, how, true, gone));
    }

    private boolean isThisInstance(JobInstance owner) {
        return instance != null && owner.instanceId().equals(instance.instanceId());
    }

    /**
     * The refusal when {@code other}, another job instance, uses this sink's prefix; {@code
     * evidence} (a sentence, or "") says why it counts as running.
     */
    private String sharedPrefix(JobInstance other, String how, boolean byClaim, String evidence) {
        String release =
                byClaim
                        ? "If the other job is gone for good and this one replaces it (for example"
                                + " continues it from its savepoint on a new checkpoint"
                                + " directory), release its claim and start again:"
                                + " kafka-consumer-groups.sh --bootstrap-server "
                                + settings.bootstrapServers()
                                + " --delete --group '"
                                + KafkaTransactions.ownerGroup(prefix)
                                + "'"
                        : "If the other job is gone for good and its output is to stay, delete"
                                + " the prefix's progress groups ('"
                                + prefix
                                + ":<subtask>', kafka-consumer-groups.sh --delete) knowing"
                                + " that this job will write its own output again";
        return new JobInstance.SharedPrefix(
                        sinkName,
                        jobName,
                        instance,
                        "transactional id prefix",
                        prefix,
                        "Kafka at " + settings.bootstrapServers(),
                        "Jobs that share a prefix fence each other's producers, abort each other's"
                                + " pre-committed transactions (losing their output) and mix their"
                                + " progress groups; this job aborted and fenced none of the"
                                + " other's transactions.",
                        settings.transactionalIdPrefix() != null,
                        "KafkaSink.transactionalIdPrefix",
                        "KafkaSink.transactionalIdPrefix",
                        "cluster")
                .refusal(other, how, evidence, release);
    }

    private String refusal(int j, long id) {
        JobInstance committer = cluster.progressCommitter(prefix, j).orElse(null);
        if (instance != null
                && committer != null
                && !committer.instanceId().equals(instance.instanceId())) {
            // Not a lost checkpoint of this job: another job wrote under this prefix.
            return sharedPrefix(
                    committer,
                    "holds output of checkpoint "
                            + id
                            + " committed by subtask "
                            + j
                            + " (group '"
                            + KafkaTransactions.progressGroup(prefix, j)
                            + "') of",
                    false,
                    "");
        }
        String restored =
                restoredCheckpointId == 0
                        ? "this run asked to resume but found no complete checkpoint"
                        : "this run restored checkpoint " + restoredCheckpointId;
        String group = KafkaTransactions.progressGroup(prefix, j);
        return "sink '"
                + sinkName
                + "' refuses to run: subtask "
                + j
                + " committed output of checkpoint "
                + id
                + " to topic "
                + settings.topic()
                + " (recorded as the offset of consumer group '"
                + group
                + "'), but "
                + restored
                + ". A newer checkpoint completed and its metadata (its _manifest) is lost, so"
                + " replaying from there would write that output twice. Put the lost checkpoint"
                + " back into the checkpoint directory and start again; or start over with resume"
                + " \"none\" (the output already in "
                + settings.topic()
                + " stays there); or, to go on from here knowing readers will see that output"
                + " twice, delete the sink's progress groups (kafka-consumer-groups.sh --delete"
                + " --group '"
                + group
                + "' and the other '"
                + prefix
                + ":<subtask>' groups)";
    }

    /** An idle producer, or a new one (initialised: fences earlier users of its id). */
    private Slot takeSlot() {
        Slot slot = idle.poll();
        if (slot != null) {
            return slot;
        }
        if (slots >= MAX_PRODUCERS) {
            throw new IllegalStateException(
                    "sink '"
                            + sinkName
                            + "' subtask "
                            + subtask
                            + " has "
                            + prepared.size()
                            + " pre-committed transactions waiting for their checkpoints to"
                            + " complete; checkpoints are failing (see the checkpoint failures"
                            + " logged before this)");
        }
        if (instance != null && !claimed) {
            claimPrefix(false); // recoverOwned did not run; initTransactions fences earlier users
        }
        String transactionalId = KafkaTransactions.transactionalId(prefix, subtask, slots++);
        KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(producerProperties(transactionalId));
        try {
            producer.initTransactions();
        } catch (InvalidTxnTimeoutException e) {
            producer.close(Duration.ZERO);
            throw SinkChecks.timeoutRefused(sinkName, settings.transactionTimeoutMs(), -1, e);
        } catch (RuntimeException e) {
            producer.close(Duration.ZERO);
            throw e;
        }
        return new Slot(transactionalId, producer);
    }

    private Properties producerProperties(String transactionalId) {
        Properties props = new Properties();
        props.putAll(settings.properties());
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, settings.bootstrapServers());
        props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        props.put(
                ProducerConfig.TRANSACTION_TIMEOUT_CONFIG,
                Long.toString(settings.transactionTimeoutMs()));
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        // Records become visible only when their checkpoint commits, and the barrier flushes them:
        // lingering and large batches cost readers nothing and save requests on both sides (with
        // 1 MB batches and 20 ms the bench job ran about 20% faster than with Kafka's 16 KB and
        // 5 ms). A topic with many partitions per producer may want a smaller batch.size
        // (buffer.memory is 32 MB by default).
        props.putIfAbsent(ProducerConfig.BATCH_SIZE_CONFIG, "1048576");
        props.putIfAbsent(ProducerConfig.LINGER_MS_CONFIG, "20");
        props.putIfAbsent(
                ProducerConfig.CLIENT_ID_CONFIG, "weir-" + transactionalId.replace(':', '-'));
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        return props;
    }

    @Override
    public void close() {
        if (open != null) {
            // A graceful close aborts the open transaction (within the timeout).
            open.slot().producer().close(ABORT_TIMEOUT);
            open = null;
        }
        for (Transaction transaction : prepared.values()) {
            // Zero: a graceful close would abort the pre-committed transaction.
            transaction.slot().producer().close(Duration.ZERO);
        }
        prepared.clear();
        for (Slot slot : idle) {
            slot.producer().close(ABORT_TIMEOUT);
        }
        idle.clear();
        cluster.close();
    }
}
