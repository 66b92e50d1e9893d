package dev.weir.api.sink;

import dev.weir.api.codec.Codec;
import dev.weir.internal.io.DurableFiles;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A base for sinks to systems without transactions: records are buffered in checkpointed state and
 * sent only when the checkpoint covering them is complete; the last sent checkpoint id is recorded
 * (in a small file per subtask under {@code progressDirectory}, written atomically) so a replay
 * after a crash never sends a checkpoint's records twice.
 *
 * <p>Subclasses implement {@link #send}. One window remains, as in every write-ahead sink: a crash
 * after {@code send} returned and before the id is recorded sends that checkpoint again; make
 * {@code send} idempotent for the same checkpoint id (for example an upsert keyed by it) to close
 * it.
 *
 * @param <T> record type
 */
public abstract class WriteAheadSink<T> implements TwoPhaseCommitSink<T, WriteAheadSink.Batch<T>> {
    /**
     * The records of one checkpoint.
     *
     * @param checkpointId the checkpoint that covers them
     * @param records the records, in arrival order
     * @param <T> record type
     */
    public record Batch<T>(long checkpointId, List<T> records) {}

    private final String progressDirectory;
    private final Codec<T> codec;

    protected WriteAheadSink(Path progressDirectory, Codec<T> codec) {
        this.progressDirectory = progressDirectory.toString();
        this.codec = codec;
    }

    /** Sends the records of checkpoint {@code checkpointId}; called once it is complete. */
    protected abstract void send(List<T> records, long checkpointId, SinkContext context)
            throws Exception;

    @Override
    public Codec<Batch<T>> committableCodec() {
        return new Codec<>() {
            @Override
            public void encode(Batch<T> value, DataOutput out) throws IOException {
                out.writeLong(value.checkpointId());
                out.writeInt(value.records().size());
                for (T record : value.records()) {
                    codec.encode(record, out);
                }
            }

            @Override
            public Batch<T> decode(DataInput in) throws IOException {
                long id = in.readLong();
                int count = in.readInt();
                List<T> records = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    records.add(codec.decode(in));
                }
                return new Batch<>(id, records);
            }
        };
    }

    @Override
    public TransactionalWriter<T, Batch<T>> createTransactionalWriter(SinkContext context)
            throws IOException {
        Path dir = Files.createDirectories(Path.of(progressDirectory));
        Path progress = dir.resolve(context.sinkName() + "-" + context.subtaskIndex() + ".sent");
        return new TransactionalWriter<>() {
            private List<T> buffer = new ArrayList<>();
            private long lastSent = readProgress(progress);

            @Override
            public void write(T record) {
                buffer.add(record);
            }

            @Override
            public Batch<T> prepareCommit(long checkpointId) {
                if (buffer.isEmpty()) {
                    return null;
                }
                Batch<T> batch = new Batch<>(checkpointId, buffer);
                buffer = new ArrayList<>();
                return batch;
            }

            @Override
            public void commit(Batch<T> batch) throws Exception {
                if (batch.checkpointId() <= lastSent) {
                    return;
                }
                send(batch.records(), batch.checkpointId(), context);
                DurableFiles.writeAtomically(
                        progress,
                        Long.toString(batch.checkpointId()).getBytes(StandardCharsets.UTF_8));
                lastSent = batch.checkpointId();
            }

            @Override
            public void recoverOwned(List<Batch<T>> committed, int subtask, int parallelism) {
                // Nothing leaves the process before commit: there is nothing to abort.
            }
        };
    }

    private static long readProgress(Path progress) throws IOException {
        if (!Files.exists(progress)) {
            return Long.MIN_VALUE;
        }
        String text = Files.readString(progress, StandardCharsets.UTF_8).trim();
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw new IOException(
                    "write-ahead sink progress file "
                            + progress
                            + " is damaged ('"
                            + text
                            + "'); restore it or delete it to resend",
                    e);
        }
    }
}
