package dev.weir.api.sink;

import dev.weir.api.codec.Codec;
import dev.weir.api.function.KeySelector;
import dev.weir.api.log.DurableLog;
import dev.weir.api.log.LogOptions;
import dev.weir.internal.checkpoint.ByteArrayDataInput;
import dev.weir.internal.checkpoint.ByteArrayDataOutput;
import dev.weir.internal.checkpoint.StateFiles;
import dev.weir.internal.log.PartitionLog;
import dev.weir.internal.log.PartitionLogs;
import dev.weir.internal.log.PartitionReader;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Writes records to a topic of the embedded {@link DurableLog} exactly-once, so another Weir job
 * can read them exactly-once with {@code Sources.log}.
 *
 * <p>A transaction's records are staged in a hidden file beside the log; at the barrier the file is
 * synced (phase 1); when the checkpoint completes they are appended to each partition as one write
 * of {@code BEGIN, data…, COMMIT} carrying the transaction id (job sink, subtask, checkpoint), and
 * the staging file is deleted (phase 2). Commit is idempotent: it first looks, from the partition
 * end recorded at phase 1, for that transaction's COMMIT. Readers deliver a transaction only at its
 * COMMIT, so a torn append is never seen.
 *
 * @param <T> record type
 */
public final class LogSink<T> implements TwoPhaseCommitSink<T, LogSink.Committable> {
    /**
     * One prepared transaction.
     *
     * @param staging the staging file's name
     * @param transaction the transaction id
     * @param endsAtPrepare each partition's end offset at phase 1, or -1 for partitions the
     *     transaction does not write to
     */
    public record Committable(String staging, long transaction, long[] endsAtPrepare) {}

    private final String directory;
    private final String topic;
    private final Codec<T> codec;
    private final KeySelector<T, ?> partitionKey;

    private LogSink(Path directory, String topic, Codec<T> codec, KeySelector<T, ?> partitionKey) {
        DurableLog.checkTopicName(topic);
        this.directory = directory.toString();
        this.topic = topic;
        this.codec = codec;
        this.partitionKey = partitionKey;
    }

    /** Records of each sink subtask go to partition {@code subtask % partitions}. */
    public static <T> LogSink<T> to(Path directory, String topic, Codec<T> codec) {
        return new LogSink<>(directory, topic, codec, null);
    }

    /** Records go to the partition their key hashes to. */
    public LogSink<T> partitionBy(KeySelector<T, ?> key) {
        return new LogSink<>(Path.of(directory), topic, codec, key);
    }

    @Override
    public String kind() {
        return "log";
    }

    @Override
    public Codec<Committable> committableCodec() {
        return new Codec<>() {
            @Override
            public void encode(Committable value, DataOutput out) throws IOException {
                out.writeUTF(value.staging());
                out.writeLong(value.transaction());
                out.writeInt(value.endsAtPrepare().length);
                for (long end : value.endsAtPrepare()) {
                    out.writeLong(end);
                }
            }

            @Override
            public Committable decode(DataInput in) throws IOException {
                String staging = in.readUTF();
                long transaction = in.readLong();
                long[] ends = new long[in.readInt()];
                for (int i = 0; i < ends.length; i++) {
                    ends[i] = in.readLong();
                }
                return new Committable(staging, transaction, ends);
            }
        };
    }

    @Override
    public TransactionalWriter<T, Committable> createTransactionalWriter(SinkContext context)
            throws IOException {
        return new Writer(context);
    }

    private final class Writer implements TransactionalWriter<T, Committable> {
        private final DurableLog log;
        private final Path staging;
        private final int subtask;
        private final String owner;
        private final PartitionLog[] partitions;
        private final ByteArrayDataOutput buffer = new ByteArrayDataOutput(64 * 1024);
        private final ByteArrayDataOutput record = new ByteArrayDataOutput(256);
        private long sequence = System.nanoTime();
        private int records;
        private boolean[] touched;

        Writer(SinkContext context) throws IOException {
            Path logDir = Path.of(directory);
            this.subtask = context.subtaskIndex();
            this.owner = context.sinkName();
            this.log = DurableLog.open(logDir, LogOptions.defaults()); // holds the log's lock
            try {
                this.staging = Files.createDirectories(logDir.resolve(".staging").resolve(topic));
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
                            : Math.floorMod(
                                    partitionKey.getKey(value).hashCode(), partitions.length);
            record.reset();
            codec.encode(value, record);
            touched[partition] = true;
            buffer.writeInt(partition);
            buffer.writeInt(record.size());
            buffer.write(record.buffer(), 0, record.size());
            records++;
        }

        @Override
        public Committable prepareCommit(long checkpointId) throws IOException {
            if (records == 0) {
                return null;
            }
            String name = owner + "-" + subtask + "-" + (sequence++) + ".stage";
            StateFiles.writeDurably(staging.resolve(name), buffer.toByteArray());
            StateFiles.fsyncDirectory(staging);
            buffer.reset();
            records = 0;
            long[] ends = new long[partitions.length];
            for (int p = 0; p < partitions.length; p++) {
                ends[p] = touched[p] ? partitions[p].endOffset() : -1;
            }
            touched = new boolean[partitions.length];
            long transaction =
                    ((long) (owner.hashCode() & 0x7fff) << 48)
                            | ((long) (subtask & 0xffff) << 32)
                            | (checkpointId & 0xffffffffL);
            return new Committable(name, transaction, ends);
        }

        @Override
        public void commit(Committable committable) throws Exception {
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
            for (int p = 0; p < partitions.length; p++) {
                if (p >= committable.endsAtPrepare().length
                        || committable.endsAtPrepare()[p] < 0
                        || committed(p, committable)) {
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
                    partitions[p].appendTransaction(byPartition.get(p), committable.transaction());
                }
            }
            Files.deleteIfExists(file);
        }

        /**
         * True if partition {@code p} holds the transaction's COMMIT after its prepare-time end.
         */
        private boolean committed(int p, Committable committable) throws IOException {
            long from = committable.endsAtPrepare()[p];
            PartitionReader reader =
                    PartitionLogs.reader(
                            partitions[p], Math.max(from, partitions[p].startOffset()));
            boolean[] found = {false};
            while (reader.hasNext() && !found[0]) {
                reader.read(
                        (offset, attributes, transaction, b, at, length) -> {
                            if (attributes == PartitionLog.TXN_COMMIT
                                    && transaction == committable.transaction()) {
                                found[0] = true;
                            }
                        },
                        4096);
            }
            return found[0];
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
        }

        @Override
        public void close() {
            log.close();
        }
    }
}
