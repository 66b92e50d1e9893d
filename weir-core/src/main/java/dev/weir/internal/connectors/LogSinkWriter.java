package dev.weir.internal.connectors;

import dev.weir.api.UnrecoverableException;
import dev.weir.api.codec.Codec;
import dev.weir.api.function.KeySelector;
import dev.weir.api.log.LogOptions;
import dev.weir.api.sink.LogSink;
import dev.weir.api.sink.LogSink.Committable;
import dev.weir.api.sink.SinkContext;
import dev.weir.api.sink.TransactionalWriter;
import dev.weir.internal.io.ByteArrayDataInput;
import dev.weir.internal.io.ByteArrayDataOutput;
import dev.weir.internal.io.DurableFiles;
import dev.weir.internal.log.LogDirectory;
import dev.weir.internal.log.PartitionLog;
import dev.weir.internal.log.PartitionLogs;
import dev.weir.internal.log.PartitionReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The writer of one {@link LogSink} subtask: stages a transaction's records in a hidden file beside
 * the log, syncs it at the barrier (phase 1), and on commit appends each partition's records as one
 * {@code BEGIN, data…, COMMIT} write whose COMMIT marker names the transaction in full (phase 2).
 * After a restore it deletes its old subtasks' stale staging files and refuses to run if it finds
 * its own output committed for a checkpoint newer than the restored one (the protocol is described
 * on {@link LogSink} and in docs/design/004-durable-log.md).
 *
 * <p>Called on the sink task's thread only, as {@link TransactionalWriter} says. Holds a use of the
 * log directory's lock from construction to {@link #close}.
 *
 * @param <T> record type
 */
public final class LogSinkWriter<T> implements TransactionalWriter<T, Committable> {
    /** The COMMIT marker's payload format: version, job, sink, subtask, checkpoint id. */
    private static final byte MARKER_VERSION = 1;

    private final String topic;
    private final Codec<T> codec;
    private final KeySelector<T, ?> partitionKey;
    private final LogDirectory log;
    private final Path staging;
    private final int subtask;
    private final String job;
    private final String owner;
    private final long restoredCheckpointId;
    private final PartitionLog[] partitions;
    private final ByteArrayDataOutput buffer = new ByteArrayDataOutput(64 * 1024);
    private final ByteArrayDataOutput record = new ByteArrayDataOutput(256);
    private long sequence = System.nanoTime();
    private int records;
    private boolean[] touched;

    /**
     * Opens the log in {@code directory} for writing (taking a use of its lock) and the partitions
     * of {@code topic}.
     *
     * @param partitionKey the key whose hash picks a record's partition; null for {@code subtask %
     *     partitions}
     */
    public LogSinkWriter(
            Path directory,
            String topic,
            Codec<T> codec,
            KeySelector<T, ?> partitionKey,
            SinkContext context)
            throws IOException {
        this.topic = topic;
        this.codec = codec;
        this.partitionKey = partitionKey;
        this.subtask = context.subtaskIndex();
        this.job = context.jobName();
        this.owner = context.sinkName();
        this.restoredCheckpointId = context.restoredCheckpointId();
        this.log = LogDirectory.open(directory, LogOptions.defaults()); // holds the log's lock
        try {
            if (!log.hasTopic(topic)) {
                // As the Kafka sink does: a restart would not create it.
                throw new dev.weir.api.UnrecoverableException(
                        "log "
                                + directory
                                + " has no topic '"
                                + topic
                                + "' for sink '"
                                + owner
                                + "'; create it first (weir log --dir "
                                + directory
                                + " create "
                                + topic
                                + " --partitions N, or DurableLog.createTopic)");
            }
            this.staging = Files.createDirectories(directory.resolve(".staging").resolve(topic));
            int count = log.partitions(topic);
            this.partitions = new PartitionLog[count];
            this.touched = new boolean[count];
            for (int p = 0; p < count; p++) {
                partitions[p] = log.partition(topic, p);
            }
        } catch (IOException | RuntimeException e) {
            log.close();
            throw e;
        }
    }

    @Override
    public void write(T value) throws Exception {
        int partition =
                partitionKey == null
                        ? subtask % partitions.length
                        : Math.floorMod(partitionKey.getKey(value).hashCode(), partitions.length);
        record.reset();
        codec.encode(value, record);
        touched[partition] = true;
        buffer.writeInt(partition);
        buffer.writeInt(record.size());
        buffer.write(record.buffer(), 0, record.size());
        records++;
    }

    /**
     * Always returns a committable, even without records: its partition ends bound the search for
     * newer commits after a restore of this checkpoint.
     */
    @Override
    public Committable prepareCommit(long checkpointId) throws IOException {
        long[] ends = new long[partitions.length];
        for (int p = 0; p < partitions.length; p++) {
            ends[p] = partitions[p].endOffset();
        }
        long transaction = transactionId(subtask, checkpointId);
        if (records == 0) {
            return new Committable("", transaction, checkpointId, ends, new int[0]);
        }
        String name = owner + "-" + subtask + "-" + (sequence++) + ".stage";
        DurableFiles.writeDurably(staging.resolve(name), buffer.toByteArray());
        DurableFiles.fsyncDirectory(staging);
        buffer.reset();
        records = 0;
        int[] written = new int[partitions.length];
        int count = 0;
        for (int p = 0; p < partitions.length; p++) {
            if (touched[p]) {
                written[count++] = p;
            }
        }
        touched = new boolean[partitions.length];
        return new Committable(
                name, transaction, checkpointId, ends, Arrays.copyOf(written, count));
    }

    /**
     * The id of this sink's transaction for {@code checkpointId}: 15 bits of a hash of job and
     * sink, 16 bits of subtask, the checkpoint id's low 32 bits. The COMMIT marker names the
     * transaction in full, so the hash only has to make a mismatch cheap to skip.
     */
    private long transactionId(int subtask, long checkpointId) {
        return ((long) ((job + '\0' + owner).hashCode() & 0x7fff) << 48)
                | ((long) (subtask & 0xffff) << 32)
                | (checkpointId & 0xffffffffL);
    }

    @Override
    public void commit(Committable committable) throws Exception {
        if (committable.partitions().length == 0) {
            return; // nothing staged
        }
        Path file = staging.resolve(committable.staging());
        List<List<byte[]>> byPartition = new ArrayList<>();
        for (int p = 0; p < partitions.length; p++) {
            byPartition.add(new ArrayList<>());
        }
        boolean staged = Files.exists(file);
        if (staged) {
            byte[] bytes = Files.readAllBytes(file);
            ByteArrayDataInput in = new ByteArrayDataInput().reset(bytes, 0, bytes.length);
            int read = 0;
            while (read < bytes.length) {
                int partition = in.readInt();
                byte[] payload = new byte[in.readInt()];
                in.readFully(payload);
                byPartition.get(partition).add(payload);
                read += 8 + payload.length;
            }
        }
        int writer = (int) ((committable.transaction() >>> 32) & 0xffff);
        byte[] marker = new Marker(job, owner, writer, committable.checkpointId()).toBytes();
        for (int p : committable.partitions()) {
            if (p >= partitions.length || committed(p, committable)) {
                continue;
            }
            if (!staged) {
                throw new IllegalStateException(
                        "log sink cannot commit transaction "
                                + committable.transaction()
                                + " to "
                                + topic
                                + "-"
                                + p
                                + ": its staging file "
                                + file
                                + " is gone and the log does not hold its COMMIT");
            }
            if (!byPartition.get(p).isEmpty()) {
                partitions[p].appendTransaction(
                        byPartition.get(p), committable.transaction(), marker);
            }
        }
        Files.deleteIfExists(file);
    }

    /** True if partition {@code p} holds the transaction's COMMIT after its prepare-time end. */
    private boolean committed(int p, Committable committable) throws IOException {
        long from = Math.max(0, committable.endsAtPrepare()[p]);
        boolean[] found = {false};
        scan(
                p,
                from,
                (offset, transaction, marker) -> {
                    if (transaction == committable.transaction()
                            && (marker == null || isOurs(marker))) {
                        found[0] = true;
                    }
                    return !found[0];
                });
        return found[0];
    }

    private boolean isOurs(Marker marker) {
        return marker.job().equals(job) && marker.sink().equals(owner);
    }

    /**
     * Reads partition {@code p} from {@code from} to its end, handing each COMMIT to {@code
     * visitor} (its marker is null for an older Weir's COMMIT) until it returns false.
     */
    private void scan(int p, long from, CommitVisitor visitor) throws IOException {
        PartitionReader reader =
                PartitionLogs.reader(partitions[p], Math.max(from, partitions[p].startOffset()));
        boolean[] going = {true};
        while (going[0] && reader.hasNext()) {
            reader.read(
                    (offset, attributes, transaction, b, at, length) -> {
                        if (going[0] && attributes == PartitionLog.TXN_COMMIT) {
                            going[0] =
                                    visitor.commit(
                                            offset, transaction, Marker.parse(b, at, length));
                        }
                    },
                    4096);
        }
    }

    @Override
    public void recoverOwned(List<Committable> committed, int subtask, int parallelism)
            throws IOException {
        Set<String> keep = new HashSet<>();
        for (Committable c : committed) {
            keep.add(c.staging());
        }
        try (Stream<Path> files = Files.list(staging)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                String name = file.getFileName().toString();
                String prefix = owner + "-";
                if (!name.startsWith(prefix) || keep.contains(name)) {
                    continue;
                }
                String rest = name.substring(prefix.length());
                int dash = rest.indexOf('-');
                if (dash > 0
                        && Integer.parseInt(rest.substring(0, dash)) % parallelism == subtask) {
                    Files.deleteIfExists(file);
                }
            }
        }
        if (restoredCheckpointId >= 0) {
            refuseNewerCommits(committed, subtask, parallelism);
        }
    }

    /**
     * Throws if a partition holds a COMMIT of this sink's own transaction (an old subtask this
     * subtask now owns) for a checkpoint newer than the restored one and not among {@code
     * committed}. Each partition is read from the largest end recorded at phase 1 by a restored
     * committable (none: from its start).
     */
    private void refuseNewerCommits(List<Committable> committed, int subtask, int parallelism)
            throws IOException {
        Set<Long> restored = new HashSet<>();
        long[] from = new long[partitions.length];
        for (Committable c : committed) {
            restored.add(c.transaction());
            for (int p = 0; p < from.length && p < c.endsAtPrepare().length; p++) {
                from[p] = Math.max(from[p], c.endsAtPrepare()[p]);
            }
        }
        long legacyOwner = (long) (owner.hashCode() & 0x7fff) << 48;
        for (int p = 0; p < partitions.length; p++) {
            int partition = p;
            scan(
                    p,
                    from[p],
                    (offset, transaction, marker) -> {
                        int writer;
                        long checkpoint;
                        if (marker != null) {
                            if (!isOurs(marker)) {
                                return true;
                            }
                            writer = marker.subtask();
                            checkpoint = marker.checkpointId();
                        } else if ((transaction & (0x7fffL << 48)) == legacyOwner) {
                            writer = (int) ((transaction >>> 32) & 0xffff); // an older Weir
                            checkpoint = transaction & 0xffffffffL;
                        } else {
                            return true;
                        }
                        if (writer % parallelism == subtask
                                && checkpoint > restoredCheckpointId
                                && !restored.contains(transaction)) {
                            throw refusal(partition, offset, writer, checkpoint);
                        }
                        return true;
                    });
        }
    }

    private UnrecoverableException refusal(
            int partition, long offset, int writer, long checkpoint) {
        String restoredText =
                restoredCheckpointId > 0
                        ? "this run restored checkpoint " + restoredCheckpointId
                        : "this run found no checkpoint to resume from";
        return new UnrecoverableException(
                "log sink '"
                        + owner
                        + "' of job '"
                        + job
                        + "' refuses to run: topic '"
                        + topic
                        + "' partition "
                        + partition
                        + " holds the COMMIT (offset "
                        + offset
                        + ") of its own output for checkpoint "
                        + checkpoint
                        + " (subtask "
                        + writer
                        + "), but "
                        + restoredText
                        + ". A newer checkpoint completed and its metadata (_manifest) is"
                        + " lost; replaying from here would append that output a second"
                        + " time. Restore the lost checkpoint and resume from it; or, to start"
                        + " over, write to a fresh topic or start the job with resume \"none\""
                        + " (the output already in '"
                        + topic
                        + "' stays)");
    }

    @Override
    public void close() {
        log.close();
    }

    /**
     * What a COMMIT marker says about its transaction.
     *
     * @param job the job's name
     * @param sink the sink's name
     * @param subtask the sink subtask that wrote it
     * @param checkpointId the checkpoint it belongs to
     */
    private record Marker(String job, String sink, int subtask, long checkpointId) {
        byte[] toBytes() throws IOException {
            ByteArrayDataOutput out = new ByteArrayDataOutput(64);
            out.writeByte(MARKER_VERSION);
            out.writeUTF(job);
            out.writeUTF(sink);
            out.writeInt(subtask);
            out.writeLong(checkpointId);
            return out.toByteArray();
        }

        /** The marker in a COMMIT's payload, or null if it has none (an older Weir's COMMIT). */
        static Marker parse(byte[] buffer, int at, int length) {
            if (length == 0 || buffer[at] != MARKER_VERSION) {
                return null;
            }
            try {
                ByteArrayDataInput in = new ByteArrayDataInput().reset(buffer, at + 1, length - 1);
                return new Marker(in.readUTF(), in.readUTF(), in.readInt(), in.readLong());
            } catch (IOException e) {
                return null;
            }
        }
    }

    /** Receives the COMMIT markers a scan meets; returns false to stop it. */
    @FunctionalInterface
    private interface CommitVisitor {
        boolean commit(long offset, long transaction, Marker marker);
    }
}
