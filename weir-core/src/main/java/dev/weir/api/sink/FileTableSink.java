package dev.weir.api.sink;

import dev.weir.api.codec.Codec;
import dev.weir.api.function.KeySelector;
import dev.weir.internal.io.ByteArrayDataInput;
import dev.weir.internal.io.ByteArrayDataOutput;
import dev.weir.internal.io.DurableFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

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
    private final String directory;
    private final KeySelector<T, K> key;
    private final Codec<T> codec;
    private final boolean deterministic;

    /**
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
        Path dir = Files.createDirectories(Path.of(directory));
        Path file = dir.resolve("table-" + context.subtaskIndex() + ".bin");
        return new UpsertWriter<>() {
            private final Map<K, T> rows = new LinkedHashMap<>();
            private long checkpoint = -1;

            {
                for (Map.Entry<Long, List<T>> loaded : read(file, codec).entrySet()) {
                    checkpoint = loaded.getKey();
                    for (T row : loaded.getValue()) {
                        rows.put(keyOf(row), row);
                    }
                }
            }

            @Override
            public void upsert(List<T> records, long checkpointId) throws Exception {
                for (T record : records) {
                    rows.put(keyOf(record), record);
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
        };
    }

    private static <T> Map<Long, List<T>> read(Path file, Codec<T> codec) throws Exception {
        if (!Files.exists(file)) {
            return Map.of();
        }
        byte[] bytes = Files.readAllBytes(file);
        ByteArrayDataInput in = new ByteArrayDataInput().reset(bytes, 0, bytes.length);
        long checkpoint = in.readLong();
        int count = in.readInt();
        List<T> rows = new java.util.ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            rows.add(codec.decode(in));
        }
        return Map.of(checkpoint, rows);
    }

    /** Every row of every subtask's table in {@code directory}. */
    public static <T> List<T> readTable(Path directory, Codec<T> codec) throws Exception {
        List<T> rows = new java.util.ArrayList<>();
        if (!Files.isDirectory(directory)) {
            return rows;
        }
        try (Stream<Path> files = Files.list(directory)) {
            for (Path file :
                    files.filter(p -> p.getFileName().toString().startsWith("table-"))
                            .sorted()
                            .toList()) {
                read(file, codec).values().forEach(rows::addAll);
            }
        }
        return rows;
    }
}
