package dev.weir.internal.connectors;

import dev.weir.api.sink.TransactionalWriter;
import dev.weir.api.sink.WriteAheadSink;
import dev.weir.api.sink.WriteAheadSink.Batch;
import dev.weir.internal.io.DurableFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The writer of one {@link WriteAheadSink} subtask: buffers records until the barrier, hands the
 * batch to the checkpoint as its committable, and on commit sends it (unless the progress file says
 * it was sent) and then records its checkpoint id in the progress file, written atomically.
 *
 * <p>Called on the sink task's thread only, as {@link TransactionalWriter} says.
 *
 * @param <T> record type
 */
public final class WriteAheadSinkWriter<T> implements TransactionalWriter<T, Batch<T>> {
    /** Sends a complete checkpoint's records: the sink's {@code send}. */
    @FunctionalInterface
    public interface Sender<T> {
        void send(List<T> records, long checkpointId) throws Exception;
    }

    private final Path progress;
    private final Sender<T> sender;
    private List<T> buffer = new ArrayList<>();
    private long lastSent;

    /**
     * A writer that records what it sent in {@code progress} (its directory exists) and reads it
     * now.
     *
     * @throws IOException if the progress file cannot be read or is damaged
     */
    public WriteAheadSinkWriter(Path progress, Sender<T> sender) throws IOException {
        this.progress = progress;
        this.sender = sender;
        this.lastSent = readProgress(progress);
    }

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
        sender.send(batch.records(), batch.checkpointId());
        DurableFiles.writeAtomically(
                progress, Long.toString(batch.checkpointId()).getBytes(StandardCharsets.UTF_8));
        lastSent = batch.checkpointId();
    }

    @Override
    public void recoverOwned(List<Batch<T>> committed, int subtask, int parallelism) {
        // Nothing leaves the process before commit: there is nothing to abort.
    }

    /** The last checkpoint id sent, or {@link Long#MIN_VALUE} if nothing was. */
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
