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
 * (key → latest record) in {@code table-<subtask>.bin} as {@code long checkpointId, int rows,
 * rows…} (rows with the sink's codec), rewritten atomically (temp, fsync, rename, directory fsync)
 * at every upsert, so the file always names the checkpoint its rows reflect.
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
    private final Map<K, T> rows = new LinkedHashMap<>();
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
        this.codec = codec;
        this.keyOf = keyOf;
        for (Map.Entry<Long, List<T>> loaded : read(file, codec).entrySet()) {
            checkpoint = loaded.getKey();
            for (T row : loaded.getValue()) {
                rows.put(keyOf.apply(row), row);
            }
        }
    }

    @Override
    public void upsert(List<T> records, long checkpointId) throws Exception {
        for (T record : records) {
            rows.put(keyOf.apply(record), record);
        }
        ByteArrayDataOutput out = new ByteArrayDataOutput(4096);
        out.writeLong(checkpointId);
        out.writeInt(rows.size());
        for (T row : rows.values()) {
            codec.encode(row, out);
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
        if (!Files.isDirectory(directory)) {
            return rows;
        }
        try (Stream<Path> files = Files.list(directory)) {
            for (Path file :
                    files.filter(p -> p.getFileName().toString().startsWith(PREFIX))
                            .sorted()
                            .toList()) {
                read(file, codec).values().forEach(rows::addAll);
            }
        }
        return rows;
    }

    /** The checkpoint id and rows {@code file} holds; empty if it does not exist. */
    private static <T> Map<Long, List<T>> read(Path file, Codec<T> codec) throws IOException {
        if (!Files.exists(file)) {
            return Map.of();
        }
        byte[] bytes = Files.readAllBytes(file);
        ByteArrayDataInput in = new ByteArrayDataInput().reset(bytes, 0, bytes.length);
        long checkpoint = in.readLong();
        int count = in.readInt();
        List<T> rows = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            rows.add(codec.decode(in));
        }
        return Map.of(checkpoint, rows);
    }
}
