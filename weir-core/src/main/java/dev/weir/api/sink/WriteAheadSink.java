package dev.weir.api.sink;

import dev.weir.api.codec.Codec;
import dev.weir.internal.connectors.WriteAheadSinkWriter;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A base for sinks to systems without transactions: records are buffered in checkpointed state and
 * sent only when the checkpoint covering them is complete; the last sent checkpoint id is recorded
 * (in a small file per subtask under {@code progressDirectory}, written atomically) so a replay
 * after a crash never sends a checkpoint's records twice. Each batch carries the subtask that
 * buffered it, and its sending is recorded in that subtask's file whichever subtask sends it, so a
 * restore at another parallelism neither skips nor repeats a batch.
 *
 * <p>Subclasses implement {@link #send}. One window remains, as in every write-ahead sink: a crash
 * after {@code send} returned and before the id is recorded sends that checkpoint again; make
 * {@code send} idempotent for the same checkpoint id and origin subtask (for example an upsert
 * keyed by them; see {@link #send(Batch, SinkContext)}) to close it.
 *
 * @param <T> record type
 */
public abstract class WriteAheadSink<T> implements TwoPhaseCommitSink<T, WriteAheadSink.Batch<T>> {
    /**
     * The records of one checkpoint.
     *
     * @param checkpointId the checkpoint that covers them
     * @param origin the subtask that buffered them, whose progress file records their sending
     *     (whichever subtask sends them after a rescale); -1 for a batch from a checkpoint written
     *     before origins were recorded
     * @param records the records, in arrival order
     * @param <T> record type
     */
    public record Batch<T>(long checkpointId, int origin, List<T> records) {}

    /** Where each subtask's progress file lives, as a string so the sink is serialisable. */
    private final String progressDirectory;

    /** Writes buffered records into checkpoints. */
    private final Codec<T> codec;

    /**
     * A sink that keeps its progress files in {@code progressDirectory}.
     *
     * @param progressDirectory where the per-subtask progress files go; created if missing. Keep it
     *     across runs: deleting it makes a restore send checkpoints again
     * @param codec writes buffered records into checkpoints and reads them back
     */
    protected WriteAheadSink(Path progressDirectory, Codec<T> codec) {
        this.progressDirectory = progressDirectory.toString();
        this.codec = codec;
    }

    /**
     * Sends the records of checkpoint {@code checkpointId}; called once it is complete, on the sink
     * task's thread.
     *
     * @param records the records buffered for that checkpoint, in arrival order
     * @param checkpointId the completed checkpoint
     * @param context the sink subtask that sends them
     * @throws Exception if sending fails; the job fails, and a restart sends the batch again
     */
    protected abstract void send(List<T> records, long checkpointId, SinkContext context)
            throws Exception;

    /**
     * Sends {@code batch}; by default {@link #send(List, long, SinkContext)}. After a restore at a
     * lower parallelism one subtask may send several batches of one checkpoint (one per subtask
     * that buffered them, {@link Batch#origin()}): a {@code send} made idempotent by keying its
     * writes on the checkpoint id must key them on the id and the origin, and override this.
     *
     * @param batch the records of one checkpoint from one origin subtask
     * @param context the sink subtask that sends them
     * @throws Exception if sending fails; the job fails, and a restart sends the batch again
     */
    protected void send(Batch<T> batch, SinkContext context) throws Exception {
        send(batch.records(), batch.checkpointId(), context);
    }

    @Override
    public Codec<Batch<T>> committableCodec() {
        return new Codec<>() {
            @Override
            public void encode(Batch<T> value, DataOutput out) throws IOException {
                out.writeLong(value.checkpointId());
                // Negative, unlike the record count that followed the id in the first format.
                out.writeInt(-1 - Math.max(0, value.origin()));
                out.writeInt(value.records().size());
                for (T record : value.records()) {
                    codec.encode(record, out);
                }
            }

            @Override
            public Batch<T> decode(DataInput in) throws IOException {
                long id = in.readLong();
                int first = in.readInt();
                int origin = first < 0 ? -1 - first : -1;
                int count = first < 0 ? in.readInt() : first;
                List<T> records = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    records.add(codec.decode(in));
                }
                return new Batch<>(id, origin, records);
            }
        };
    }

    @Override
    public TransactionalWriter<T, Batch<T>> createTransactionalWriter(SinkContext context)
            throws IOException {
        Path dir = Files.createDirectories(Path.of(progressDirectory));
        return new WriteAheadSinkWriter<>(
                dir,
                context.sinkName(),
                context.subtaskIndex(),
                context.restoredCheckpointId(),
                batch -> send(batch, context));
    }
}
