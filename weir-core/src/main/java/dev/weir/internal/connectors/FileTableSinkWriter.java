package dev.weir.internal.connectors;

import dev.weir.api.codec.Codec;
import dev.weir.api.sink.FileTableSink;
import dev.weir.api.sink.IdempotentSink.UpsertWriter;
import dev.weir.internal.io.ByteArrayDataInput;
import dev.weir.internal.io.ByteArrayDataOutput;
import dev.weir.internal.io.DurableFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * The writer of one {@link FileTableSink} subtask, and the format of its file: the subtask's table
 * (key → latest record) in {@code table-<subtask>.bin} as {@code long FORMAT, long generation, long
 * checkpointId, int rows, (long rowGeneration, long rowCheckpointId, row)…} (rows with the sink's
 * codec), rewritten atomically (temp, fsync, rename, directory fsync) at every upsert, so the file
 * always names the checkpoint its rows reflect. Each row keeps when it was last upserted: the
 * writer's generation (one more than any in the directory when the writer opened, so every run,
 * restart and restore writes above all earlier ones, whatever its checkpoint ids) and the
 * checkpoint. After a restore at another parallelism a key's records reach another subtask, and the
 * row the old subtask's file still holds is older than the new one, which is how {@link
 * #readTable(Path, Codec, Function)} keeps one row per key. (Files written before: {@code long
 * checkpointId, int rows, rows…}; their rows count as generation 0.)
 *
 * <p>Called on the sink task's thread only, as {@link UpsertWriter} says.
 *
 * @param <T> record type
 * @param <K> key type
 */
public final class FileTableSinkWriter<T, K> implements UpsertWriter<T> {
    private static final String PREFIX = "table-";

    private final Path file;
    private final Codec<T> codec;
    private final Function<T, K> keyOf;
    private final Map<K, Row<T>> rows = new LinkedHashMap<>();

    /**
     * Marks the format with per-row ages (never a checkpoint id, which the old format began with).
     */
    private static final long FORMAT = 0x5765697254626C33L;

    /** A stored row and when it was last upserted: by generation, then checkpoint. */
    private record Row<T>(long generation, long checkpointId, T value) {
        boolean newerThan(Row<T> other) {
            return generation != other.generation
                    ? generation > other.generation
                    : checkpointId > other.checkpointId;
        }
    }

    /** This writer's generation: above every one in the directory when it opened. */
    private final long generation;

    private long checkpoint = -1;

    /**
     * Opens subtask {@code subtask}'s table in {@code directory} (created if missing) and loads
     * what it holds.
     *
     * @param keyOf the key a record is upserted under
     */
    public FileTableSinkWriter(Path directory, int subtask, Codec<T> codec, Function<T, K> keyOf)
            throws Exception {
        Path dir = Files.createDirectories(directory);
        this.file = dir.resolve(PREFIX + subtask + ".bin");
        long newest = 0;
        for (Path table : tableFiles(dir)) {
            newest = Math.max(newest, generationOf(table));
        }
        this.generation = newest + 1;
        this.codec = codec;
        this.keyOf = keyOf;
        Table<T> loaded = read(file, codec);
        if (loaded != null) {
            checkpoint = loaded.checkpointId();
            for (Row<T> row : loaded.rows()) {
                rows.put(keyOf.apply(row.value()), row);
            }
        }
    }

    @Override
    public void upsert(List<T> records, long checkpointId) throws Exception {
        for (T record : records) {
            rows.put(keyOf.apply(record), new Row<>(generation, checkpointId, record));
        }
        ByteArrayDataOutput out = new ByteArrayDataOutput(4096);
        out.writeLong(FORMAT);
        out.writeLong(generation);
        out.writeLong(checkpointId);
        out.writeInt(rows.size());
        for (Row<T> row : rows.values()) {
            out.writeLong(row.generation());
            out.writeLong(row.checkpointId());
            codec.encode(row.value(), out);
        }
        DurableFiles.writeAtomically(file, out.toByteArray());
        checkpoint = checkpointId;
    }

    @Override
    public long lastCheckpointId() {
        return checkpoint;
    }

    /** Every row of every subtask's table in {@code directory}, tables in name order. */
    public static <T> List<T> readTable(Path directory, Codec<T> codec) throws Exception {
        List<T> rows = new ArrayList<>();
        for (Table<T> table : tables(directory, codec)) {
            table.rows().forEach(row -> rows.add(row.value()));
        }
        return rows;
    }

    /**
     * The table: per key, the row the newest checkpoint upserted, whichever subtask's file holds it
     * (an older row of the key in another file is one a subtask kept after the key moved away at a
     * restore with another parallelism). Keys in first-seen order, tables in name order.
     */
    public static <T, K> List<T> readTable(Path directory, Codec<T> codec, Function<T, K> keyOf)
            throws Exception {
        Map<K, Row<T>> newest = new LinkedHashMap<>();
        for (Table<T> table : tables(directory, codec)) {
            for (Row<T> row : table.rows()) {
                newest.merge(
                        keyOf.apply(row.value()),
                        row,
                        (had, next) -> next.newerThan(had) ? next : had);
            }
        }
        List<T> rows = new ArrayList<>(newest.size());
        newest.values().forEach(row -> rows.add(row.value()));
        return rows;
    }

    private static <T> List<Table<T>> tables(Path directory, Codec<T> codec) throws IOException {
        List<Table<T>> tables = new ArrayList<>();
        for (Path file : tableFiles(directory)) {
            Table<T> table = read(file, codec);
            if (table != null) {
                tables.add(table);
            }
        }
        return tables;
    }

    /** The table files in {@code directory}, in name order; none if it does not exist. */
    private static List<Path> tableFiles(Path directory) throws IOException {
        if (!Files.isDirectory(directory)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(directory)) {
            return files.filter(p -> p.getFileName().toString().startsWith(PREFIX))
                    .filter(p -> p.getFileName().toString().endsWith(".bin"))
                    .sorted()
                    .toList();
        }
    }

    /**
     * The generation in the header of table file {@code file} (the largest of its rows'), without
     * decoding its rows; 0 for a file in the format from before generations, or one that is gone.
     */
    private static long generationOf(Path file) throws IOException {
        byte[] header = new byte[2 * Long.BYTES];
        try (java.io.InputStream in = Files.newInputStream(file)) {
            if (in.readNBytes(header, 0, header.length) < header.length) {
                return 0;
            }
        } catch (java.nio.file.NoSuchFileException e) {
            return 0;
        }
        java.nio.ByteBuffer fields = java.nio.ByteBuffer.wrap(header);
        return fields.getLong() == FORMAT ? fields.getLong() : 0;
    }

    /** One table file: the checkpoint it reflects and its rows. */
    private record Table<T>(long checkpointId, List<Row<T>> rows) {}

    /** What {@code file} holds; null if it does not exist. */
    private static <T> Table<T> read(Path file, Codec<T> codec) throws IOException {
        if (!Files.exists(file)) {
            return null;
        }
        byte[] bytes = Files.readAllBytes(file);
        ByteArrayDataInput in = new ByteArrayDataInput().reset(bytes, 0, bytes.length);
        long first = in.readLong();
        boolean perRow = first == FORMAT;
        if (perRow) {
            in.readLong(); // the writer's generation: what generationOf reads, without the rows
        }
        long checkpoint = perRow ? in.readLong() : first;
        int count = in.readInt();
        List<Row<T>> rows = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            long rowGeneration = perRow ? in.readLong() : 0;
            long rowCheckpoint = perRow ? in.readLong() : checkpoint;
            rows.add(new Row<>(rowGeneration, rowCheckpoint, codec.decode(in)));
        }
        return new Table<>(checkpoint, rows);
    }
}
