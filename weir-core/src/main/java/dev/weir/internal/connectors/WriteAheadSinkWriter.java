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
import java.util.HashMap;
import java.util.List;
import java.util.Map;

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
        void send(Batch<T> batch) throws Exception;
    }

    private final Path directory;
    private final String sinkName;
    private final int subtask;
    private final Sender<T> sender;
    private List<T> buffer = new ArrayList<>();

    /** Per origin subtask, the last checkpoint id its progress file says was sent. */
    private final Map<Integer, Long> lastSent = new HashMap<>();

    /**
     * The writer of subtask {@code subtask}, recording what it sent in {@code directory} (which
     * exists), one file per origin subtask: {@code <sinkName>-<origin>.sent}.
     *
     * @throws IOException if its own progress file cannot be read or is damaged
     */
    public WriteAheadSinkWriter(Path directory, String sinkName, int subtask, Sender<T> sender)
            throws IOException {
        this.directory = directory;
        this.sinkName = sinkName;
        this.subtask = subtask;
        this.sender = sender;
        lastSent(subtask);
    }

    private Path progress(int origin) {
        return directory.resolve(sinkName + "-" + origin + ".sent");
    }

    private long lastSent(int origin) throws IOException {
        Long known = lastSent.get(origin);
        if (known == null) {
            known = readProgress(progress(origin));
            lastSent.put(origin, known);
        }
        return known;
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
        Batch<T> batch = new Batch<>(checkpointId, subtask, buffer);
        buffer = new ArrayList<>();
        return batch;
    }

    @Override
    public void commit(Batch<T> batch) throws Exception {
        // A batch restored from before origins were recorded counts as this subtask's own.
        int origin = batch.origin() >= 0 ? batch.origin() : subtask;
        if (batch.checkpointId() <= lastSent(origin)) {
            return;
        }
        sender.send(batch);
        DurableFiles.writeAtomically(
                progress(origin),
                Long.toString(batch.checkpointId()).getBytes(StandardCharsets.UTF_8));
        lastSent.put(origin, batch.checkpointId());
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
