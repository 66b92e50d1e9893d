package dev.weir.api.sink;

import dev.weir.api.codec.Codec;
import dev.weir.api.function.KeySelector;
import dev.weir.internal.connectors.FileTableSinkWriter;
import java.nio.file.Path;
import java.util.List;

/**
 * An idempotent sink keeping a table (key → latest record) per subtask in a file, rewritten
 * atomically (temp, fsync, rename, directory fsync) together with the checkpoint id it reflects.
 * Small tables only: each upsert rewrites the subtask's whole file. It shows the contract; the
 * PostgreSQL upsert sink applies it to a real table.
 *
 * @param <T> record type
 * @param <K> key type
 */
public final class FileTableSink<T, K> implements IdempotentSink<T, K> {
    /** Where the table files go, as a string so the sink is serialisable. */
    private final String directory;

    /** Picks each record's key. */
    private final KeySelector<T, K> key;

    /** Writes the rows into the table files. */
    private final Codec<T> codec;

    /** Whether a replay writes the same value for a key. */
    private final boolean deterministic;

    /**
     * A table sink writing one file per subtask into {@code directory}.
     *
     * @param directory where the table files go; created if missing
     * @param key picks the key a record is upserted under
     * @param codec writes the rows into the files and reads them back
     * @param deterministic whether a replay writes the same value for a key (then exactly-once)
     */
    public FileTableSink(
            Path directory, KeySelector<T, K> key, Codec<T> codec, boolean deterministic) {
        this.directory = directory.toString();
        this.key = key;
        this.codec = codec;
        this.deterministic = deterministic;
    }

    @Override
    public String kind() {
        return "file-table";
    }

    @Override
    public K keyOf(T record) {
        try {
            return key.getKey(record);
        } catch (Exception e) {
            throw new IllegalStateException("key of " + record + " failed: " + e, e);
        }
    }

    @Override
    public boolean replaysWriteIdenticalValues() {
        return deterministic;
    }

    @Override
    public UpsertWriter<T> createUpsertWriter(SinkContext context) throws Exception {
        return new FileTableSinkWriter<>(
                Path.of(directory), context.subtaskIndex(), codec, this::keyOf);
    }

    /**
     * The table the sink keeps in {@code directory}: one row per key, the one the newest checkpoint
     * upserted. Records of one key should reach one subtask (a {@code keyBy} on the sink's key, or
     * on one it follows from, before the sink); after a restore at another parallelism a key's
     * records reach another subtask, and this keeps its new row, not the one the old subtask's file
     * still holds.
     *
     * @param <T> the row type
     * @param <K> the key type
     * @param directory the sink's directory
     * @param codec the codec the sink was built with
     * @param key the key selector the sink was built with
     * @return the rows, one per key; empty if the directory does not exist
     * @throws Exception if a file cannot be read or decoded
     */
    public static <T, K> List<T> readTable(Path directory, Codec<T> codec, KeySelector<T, K> key)
            throws Exception {
        return FileTableSinkWriter.readTable(
                directory,
                codec,
                row -> {
                    try {
                        return key.getKey(row);
                    } catch (Exception e) {
                        throw new IllegalStateException("key of " + row + " failed: " + e, e);
                    }
                });
    }

    /**
     * Every row of every subtask's table file in {@code directory}, as stored: after a restore at
     * another parallelism a key that moved to another subtask has a row in each file that held it
     * (the old one stale); {@link #readTable(Path, Codec, KeySelector)} gives one row per key.
     *
     * @param <T> the row type
     * @param directory the sink's directory
     * @param codec the codec the sink was built with
     * @return the rows, table by table in file-name order; empty if the directory does not exist
     * @throws Exception if a file cannot be read or decoded
     */
    public static <T> List<T> readTable(Path directory, Codec<T> codec) throws Exception {
        return FileTableSinkWriter.readTable(directory, codec);
    }
}
