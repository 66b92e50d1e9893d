package dev.weir.api.sink;

import dev.weir.api.UnrecoverableException;
import dev.weir.api.codec.Codec;
import dev.weir.api.function.KeySelector;
import dev.weir.api.log.DurableLog;
import dev.weir.internal.connectors.LogSinkWriter;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.nio.file.Path;

/**
 * Writes records to a topic of the embedded {@link DurableLog} exactly-once, so another Weir job
 * can read them exactly-once with {@code Sources.log}.
 *
 * <p>A transaction's records are staged in a hidden file beside the log; at the barrier the file is
 * synced (phase 1); when the checkpoint completes they are appended to each partition as one write
 * of {@code BEGIN, data…, COMMIT} carrying the transaction id (job and sink, subtask, checkpoint),
 * and the staging file is deleted (phase 2). The COMMIT marker names its transaction in full (job,
 * sink, subtask, checkpoint id). Commit is idempotent: it first looks, from the partition end
 * recorded at phase 1, for that transaction's COMMIT. Readers deliver a transaction only at its
 * COMMIT, so a torn append is never seen.
 *
 * <p><b>Refusing to replay published output.</b> After a restore, the writer looks for COMMITs of
 * its own transactions (this job and sink, old subtasks {@code j} with {@code j % parallelism ==
 * subtask}) for a checkpoint newer than {@link SinkContext#restoredCheckpointId()} that the
 * restored checkpoint does not hold: they mean a newer checkpoint completed and its metadata was
 * lost, and replaying from the older one would append that output a second time, so it throws
 * {@link UnrecoverableException} naming the topic, partition, checkpoints and the fix. Every
 * checkpoint's committable records every partition's end offset at phase 1 (even with no records),
 * so the search starts there; with nothing restored (resume found no checkpoint) it reads the whole
 * partitions. Not done when the job started fresh by request ({@code restoredCheckpointId} -1).
 *
 * @param <T> record type
 */
public final class LogSink<T> implements TwoPhaseCommitSink<T, LogSink.Committable> {
    /**
     * One prepared transaction.
     *
     * @param staging the staging file's name, empty if the transaction holds no records
     * @param transaction the transaction id
     * @param checkpointId the checkpoint it belongs to
     * @param endsAtPrepare every partition's end offset at phase 1 (-1 where unknown: a committable
     *     of an older Weir recorded only the partitions it wrote to)
     * @param partitions the partitions the transaction appends to
     */
    public record Committable(
            String staging,
            long transaction,
            long checkpointId,
            long[] endsAtPrepare,
            int[] partitions) {}

    /** Tags the committable encoding that carries the checkpoint id and the written partitions. */
    private static final int COMMITTABLE_V2 = -2;

    /** The log's directory, as a string so the sink is serialisable. */
    private final String directory;

    /** The topic written to. */
    private final String topic;

    /** Writes each record's payload. */
    private final Codec<T> codec;

    /** Picks a record's partition by its key's hash; null for {@code subtask % partitions}. */
    private final KeySelector<T, ?> partitionKey;

    private LogSink(Path directory, String topic, Codec<T> codec, KeySelector<T, ?> partitionKey) {
        DurableLog.checkTopicName(topic);
        this.directory = directory.toString();
        this.topic = topic;
        this.codec = codec;
        this.partitionKey = partitionKey;
    }

    /**
     * Records of each sink subtask go to partition {@code subtask % partitions}.
     *
     * @param <T> the record type
     * @param directory the log's directory
     * @param topic the topic to write; it must exist when the job starts
     * @param codec writes each record's payload; readers decode with the same codec
     * @return the sink
     * @throws IllegalArgumentException if the topic name is not allowed (see {@link
     *     DurableLog#checkTopicName})
     */
    public static <T> LogSink<T> to(Path directory, String topic, Codec<T> codec) {
        return new LogSink<>(directory, topic, codec, null);
    }

    /**
     * Records go to the partition their key hashes to.
     *
     * @param key picks the key; its {@code hashCode()} modulo the partition count picks the
     *     partition
     * @return a copy of this sink that partitions by {@code key}
     */
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
                out.writeInt(COMMITTABLE_V2);
                out.writeLong(value.checkpointId());
                out.writeInt(value.endsAtPrepare().length);
                for (long end : value.endsAtPrepare()) {
                    out.writeLong(end);
                }
                out.writeInt(value.partitions().length);
                for (int partition : value.partitions()) {
                    out.writeInt(partition);
                }
            }

            @Override
            public Committable decode(DataInput in) throws IOException {
                String staging = in.readUTF();
                long transaction = in.readLong();
                int tag = in.readInt();
                if (tag != COMMITTABLE_V2) {
                    return legacy(staging, transaction, tag, in);
                }
                long checkpointId = in.readLong();
                long[] ends = new long[in.readInt()];
                for (int i = 0; i < ends.length; i++) {
                    ends[i] = in.readLong();
                }
                int[] partitions = new int[in.readInt()];
                for (int i = 0; i < partitions.length; i++) {
                    partitions[i] = in.readInt();
                }
                return new Committable(staging, transaction, checkpointId, ends, partitions);
            }

            /** An older Weir's committable: the ends of the written partitions, -1 elsewhere. */
            private Committable legacy(String staging, long transaction, int count, DataInput in)
                    throws IOException {
                long[] ends = new long[count];
                int written = 0;
                for (int i = 0; i < count; i++) {
                    ends[i] = in.readLong();
                    written += ends[i] >= 0 ? 1 : 0;
                }
                int[] partitions = new int[written];
                for (int i = 0, k = 0; i < count; i++) {
                    if (ends[i] >= 0) {
                        partitions[k++] = i;
                    }
                }
                return new Committable(
                        staging, transaction, transaction & 0xffffffffL, ends, partitions);
            }
        };
    }

    @Override
    public TransactionalWriter<T, Committable> createTransactionalWriter(SinkContext context)
            throws IOException {
        return new LogSinkWriter<>(Path.of(directory), topic, codec, partitionKey, context);
    }
}
