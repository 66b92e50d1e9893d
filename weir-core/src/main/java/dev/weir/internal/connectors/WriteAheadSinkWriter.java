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

    /** {@link dev.weir.api.sink.SinkContext#restoredCheckpointId()} of this run. */
    private final long restoredCheckpointId;

    private List<T> buffer = new ArrayList<>();

    /** Per origin subtask, the last checkpoint id its progress file says was sent. */
    private final Map<Integer, Long> lastSent = new HashMap<>();

    /**
     * The writer of subtask {@code subtask}, recording what it sent in {@code directory} (which
     * exists), one file per origin subtask: {@code <sinkName>-<origin>.sent}.
     *
     * @throws IOException if its own progress file cannot be read or is damaged
     */
    public WriteAheadSinkWriter(
            Path directory,
            String sinkName,
            int subtask,
            long restoredCheckpointId,
            Sender<T> sender)
            throws IOException {
        this.directory = directory;
        this.sinkName = sinkName;
        this.subtask = subtask;
        this.restoredCheckpointId = restoredCheckpointId;
        this.sender = sender;
        lastSent(subtask);
    }

    private Path progress(int origin) {
        return directory.resolve(sinkName + "-" + origin + ".sent");
    }

    /** The origin whose progress file ({@link #progress}) is {@code fileName}, or -1. */
    private int originOf(String fileName) {
        String prefix = sinkName + "-";
        if (!fileName.startsWith(prefix) || !fileName.endsWith(".sent")) {
            return -1;
        }
        String number = fileName.substring(prefix.length(), fileName.length() - ".sent".length());
        if (number.isEmpty() || !number.chars().allMatch(Character::isDigit)) {
            return -1; // another sink's, whose name extends this one's
        }
        return Integer.parseInt(number);
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

    /**
     * Nothing leaves the process before commit, so there is nothing to abort; but the progress
     * files of the origins this subtask owns say what earlier runs sent. A fresh start by request
     * forgets them (its checkpoint ids may start again at 1, and would be taken as sent); a restore
     * of checkpoint {@code n} refuses if a batch of a newer checkpoint was sent (that checkpoint is
     * lost, and replaying from {@code n} would send its records again), as does a run that asked to
     * resume and found no checkpoint.
     */
    @Override
    public void recoverOwned(List<Batch<T>> committed, int subtask, int parallelism)
            throws IOException {
        List<Integer> origins = new ArrayList<>();
        try (java.util.stream.Stream<Path> files = Files.list(directory)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                int origin = originOf(file.getFileName().toString());
                if (origin >= 0 && origin % parallelism == subtask) {
                    origins.add(origin);
                }
            }
        }
        for (int origin : origins) {
            if (restoredCheckpointId < 0) {
                Files.deleteIfExists(progress(origin));
                lastSent.put(origin, Long.MIN_VALUE);
                continue;
            }
            long sent = lastSent(origin);
            if (sent > restoredCheckpointId) {
                throw new dev.weir.api.UnrecoverableException(
                        "write-ahead sink '"
                                + sinkName
                                + "' sent the records of checkpoint "
                                + sent
                                + " (progress file "
                                + progress(origin)
                                + "), but this run "
                                + (restoredCheckpointId == 0
                                        ? "found no complete checkpoint to restore"
                                        : "restored the older checkpoint " + restoredCheckpointId)
                                + ": a newer checkpoint or savepoint completed and this run did"
                                + " not restore it (is a checkpoint's metadata lost? was this"
                                + " savepoint restored before?), and replaying from there would"
                                + " send those records twice. Start from that checkpoint or"
                                + " savepoint, or to send the input again on purpose start with"
                                + " CheckpointConfig resume \"none\" (which forgets what was"
                                + " sent)");
            }
        }
        DurableFiles.fsyncDirectory(directory);
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
