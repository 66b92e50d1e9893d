package dev.weir.kafka;

import dev.weir.api.checkpoint.CheckpointView;
import dev.weir.api.sink.JobInstance;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionListing;

/**
 * The Kafka transactions of one exactly-once sink of one job, seen from the job's checkpoint
 * directory, for a job that will not be started again ({@code weir kafka transactions}): which
 * pre-committed transactions its newest complete checkpoint would commit on a restart, which other
 * transactions of the sink are open (a restart would abort them), and ending them by hand.
 *
 * <p>While such transactions stay open they hold back every read_committed reader of their
 * partitions until the broker aborts them at {@code transaction.timeout.ms}. Committing does what a
 * restart would do: the checkpoint's transactions are committed (if not already), the rest aborted.
 * Aborting ends them all, the checkpoint's too: their records never appear.
 *
 * <p>Do not use it on a job that runs: the checkpoint directory is read without its lock.
 */
public final class SinkTransactions {
    private SinkTransactions() {}

    /**
     * A pre-committed transaction of the checkpoint.
     *
     * @param committable what the checkpoint holds
     * @param state the coordinator's state of its transactional id now (such as {@code Ongoing})
     * @param committed true if its subtask's progress shows it committed
     */
    public record Pending(KafkaCommittable committable, String state, boolean committed) {}

    /**
     * What {@link #list} found.
     *
     * @param checkpoint the newest complete checkpoint, or null if the directory has none
     * @param pending its pre-committed transactions of the sink
     * @param lingering other open transactions of the sink's prefix (a restart aborts them)
     */
    public record Listing(Path checkpoint, List<Pending> pending, List<String> lingering) {}

    /**
     * The transactions of sink {@code sink} (prefix {@code prefix}) for the job in {@code
     * checkpoints}.
     *
     * @param checkpoints the job's checkpoint directory
     * @param sink the sink's name in the job
     * @param prefix the sink's transactional id prefix ({@link KafkaSink#defaultPrefix} unless set)
     * @param cluster the sink's cluster
     * @return the newest complete checkpoint's transactions and the other open ones
     * @throws org.apache.kafka.common.KafkaException if the cluster cannot be reached
     */
    public static Listing list(
            Path checkpoints, String sink, String prefix, KafkaTransactions cluster) {
        Optional<CheckpointView> view = CheckpointView.latest(checkpoints);
        List<KafkaCommittable> held = new ArrayList<>();
        view.ifPresent(
                v ->
                        v.pendingCommittables(sink, new KafkaCommittable.CommittableCodec())
                                .values()
                                .forEach(held::addAll));
        Set<String> ids = new HashSet<>();
        for (KafkaCommittable c : held) {
            ids.add(c.transactionalId());
            if (KafkaTransactions.subtaskOf(prefix, c.transactionalId()) < 0) {
                String id = c.transactionalId();
                int slot = id.lastIndexOf(':');
                int subtask = slot > 0 ? id.lastIndexOf(':', slot - 1) : -1;
                String theirs = subtask > 0 ? id.substring(0, subtask) : id;
                throw new IllegalArgumentException(
                        "the checkpoint in "
                                + checkpoints
                                + " holds transactions of sink '"
                                + sink
                                + "' under prefix '"
                                + theirs
                                + "' (such as "
                                + id
                                + "), not '"
                                + prefix
                                + "': give the job name the job ran with (the default prefix is"
                                + " weir:<job>:<sink>), or the prefix its sink set (--prefix "
                                + theirs
                                + ")");
            }
        }
        Map<String, TransactionDescription> described = cluster.describe(ids);
        List<Pending> pending = new ArrayList<>();
        Set<String> open = new HashSet<>(); // ids whose open transaction is the checkpoint's
        for (KafkaCommittable c : held) {
            TransactionDescription d = described.get(c.transactionalId());
            boolean committed =
                    cluster.committedCheckpoint(prefix, c.subtask()) >= c.checkpointId();
            pending.add(new Pending(c, d == null ? "unknown" : d.state().toString(), committed));
            if (!committed) {
                open.add(c.transactionalId());
            }
        }
        List<String> lingering = new ArrayList<>();
        for (TransactionListing listing : cluster.open(prefix)) {
            if (!open.contains(listing.transactionalId())) {
                lingering.add(listing.transactionalId());
            }
        }
        return new Listing(view.map(CheckpointView::path).orElse(null), pending, lingering);
    }

    /**
     * Refuses to change a running job's transactions: its checkpoint directory's {@code .lock} is
     * held (by the job's process) while it runs. For a tool in another process, such as {@code weir
     * kafka transactions}: never call it in the job's own process (closing any descriptor of a
     * locked file there would drop the job's lock). Taking the lock for a moment is harmless: a job
     * starting meanwhile is refused and can be started again.
     *
     * @param checkpoints the job's checkpoint directory
     * @throws IllegalStateException if a job holds the directory's lock
     * @throws java.io.UncheckedIOException if the lock file cannot be opened or read
     */
    public static void requireNoRunningJob(Path checkpoints) {
        Path file = checkpoints.resolve(".lock");
        if (!java.nio.file.Files.exists(file)) {
            return;
        }
        try (java.nio.channels.FileChannel channel =
                java.nio.channels.FileChannel.open(
                        file,
                        java.nio.file.StandardOpenOption.READ,
                        java.nio.file.StandardOpenOption.WRITE)) {
            java.nio.channels.FileLock lock;
            try {
                lock = channel.tryLock();
            } catch (java.nio.channels.OverlappingFileLockException e) {
                lock = null; // held in this very process
            }
            if (lock == null) {
                String holder =
                        new String(
                                        java.nio.file.Files.readAllBytes(file),
                                        java.nio.charset.StandardCharsets.US_ASCII)
                                .trim();
                throw new IllegalStateException(
                        "a job is running on checkpoint directory "
                                + checkpoints
                                + (holder.isEmpty() ? "" : " (pid " + holder + ")")
                                + ": it commits and aborts its own transactions. Stop it first;"
                                + " committing or aborting by hand is for a job that is down");
            }
            lock.release();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException("cannot check the lock " + file, e);
        }
    }

    /**
     * Refuses to act for {@code checkpoints} on {@code prefix} when another job instance claimed
     * the prefix ({@link KafkaTransactions#owner}): the open transactions of the prefix are then
     * that job's, and its checkpoint expects to commit them. Allowed when the prefix has no claim,
     * or the directory has no instance id (written before Weir kept one).
     *
     * @param checkpoints the job's checkpoint directory
     * @param prefix the sink's transactional id prefix
     * @param cluster the sink's cluster
     * @throws IllegalStateException if another job instance owns the prefix
     * @throws org.apache.kafka.common.KafkaException if the cluster cannot be reached
     */
    public static void requireOwner(Path checkpoints, String prefix, KafkaTransactions cluster) {
        Optional<String> mine = CheckpointView.instanceId(checkpoints);
        Optional<JobInstance> owner = cluster.owner(prefix);
        if (mine.isPresent() && owner.isPresent() && !owner.get().instanceId().equals(mine.get())) {
            throw new IllegalStateException(
                    "transactional id prefix '"
                            + prefix
                            + "' belongs to another job: "
                            + owner.get().describe()
                            + ", not to the job of checkpoint directory "
                            + checkpoints
                            + " (instance "
                            + mine.get()
                            + "); committing or aborting here would end that job's transactions."
                            + " Give the other job's checkpoint directory, or the prefix this"
                            + " job's sink set (--prefix)");
        }
    }

    /**
     * Commits the checkpoint's pre-committed transactions that are not committed yet, then aborts
     * the other open transactions of the sink, as a restart of the job would; returns a line per
     * transaction.
     *
     * @param checkpoints the job's checkpoint directory
     * @param sink the sink's name in the job
     * @param prefix the sink's transactional id prefix
     * @param cluster the sink's cluster
     * @return one line per transaction, saying what was done to it (LOST for one the broker aborted
     *     first)
     * @throws IllegalStateException if another job instance owns the prefix ({@link #requireOwner})
     * @throws org.apache.kafka.common.KafkaException if the cluster cannot be reached
     */
    public static List<String> commit(
            Path checkpoints, String sink, String prefix, KafkaTransactions cluster) {
        requireOwner(checkpoints, prefix, cluster);
        Listing listing = list(checkpoints, sink, prefix, cluster);
        List<String> lines = new ArrayList<>();
        for (Pending p : listing.pending()) {
            if (p.committed()) {
                lines.add("already committed " + describe(p.committable()));
                continue;
            }
            KafkaTransactions.Outcome outcome = cluster.commit(p.committable(), prefix);
            lines.add(
                    switch (outcome) {
                        case COMMITTED -> "committed " + describe(p.committable());
                        case ALREADY_COMMITTED -> "already committed " + describe(p.committable());
                        case LOST ->
                                "LOST (aborted before it could be committed) "
                                        + describe(p.committable());
                    });
        }
        for (String id : listing.lingering()) {
            cluster.abort(id);
            lines.add("aborted " + id + " (not in the checkpoint)");
        }
        return lines;
    }

    /**
     * Aborts every open transaction of the sink, the checkpoint's pre-committed ones included
     * (their records never appear); returns a line per transaction.
     *
     * @param checkpoints the job's checkpoint directory
     * @param sink the sink's name in the job
     * @param prefix the sink's transactional id prefix
     * @param cluster the sink's cluster
     * @return one line per transaction, saying what was done to it
     * @throws IllegalStateException if another job instance owns the prefix ({@link #requireOwner})
     * @throws org.apache.kafka.common.KafkaException if the cluster cannot be reached
     */
    public static List<String> abort(
            Path checkpoints, String sink, String prefix, KafkaTransactions cluster) {
        requireOwner(checkpoints, prefix, cluster);
        Listing listing = list(checkpoints, sink, prefix, cluster);
        List<String> lines = new ArrayList<>();
        for (Pending p : listing.pending()) {
            if (p.committed()) {
                lines.add("already committed, left alone: " + describe(p.committable()));
            } else {
                cluster.abort(p.committable().transactionalId());
                lines.add("aborted " + describe(p.committable()));
            }
        }
        for (String id : listing.lingering()) {
            cluster.abort(id);
            lines.add("aborted " + id + " (not in the checkpoint)");
        }
        return lines;
    }

    /**
     * One committable as a line, for people.
     *
     * @param c the committable
     * @return its transactional id, subtask, checkpoint, producer id and epoch, topic, age and
     *     timeout
     */
    public static String describe(KafkaCommittable c) {
        return c.transactionalId()
                + " (subtask "
                + c.subtask()
                + ", checkpoint "
                + c.checkpointId()
                + ", producer id "
                + c.producerId()
                + " epoch "
                + c.epoch()
                + ", topic "
                + c.topic()
                + ", started "
                + c.ageMillis(System.currentTimeMillis()) / 1000
                + " s ago, timeout "
                + c.timeoutMillis() / 1000
                + " s)";
    }
}
