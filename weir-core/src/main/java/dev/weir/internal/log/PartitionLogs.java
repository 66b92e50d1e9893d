package dev.weir.internal.log;

import dev.weir.api.log.LogOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * The partitions open in this JVM, shared by directory: a partition has one writer however many
 * {@code DurableLog} handles, sources and sinks use it. Reference-counted; closed with the last
 * user.
 */
public final class PartitionLogs {
    private static final Map<Path, PartitionLog> OPEN = new HashMap<>();
    private static final Map<PartitionLog, Integer> USERS = new HashMap<>();

    private PartitionLogs() {}

    /** Opens the partition in {@code directory}, or shares the one already open. */
    public static synchronized PartitionLog open(
            String topic, int partition, Path directory, LogOptions options) {
        Path key = directory.toAbsolutePath().normalize();
        PartitionLog log = OPEN.get(key);
        if (log == null) {
            try {
                log = PartitionLog.open(topic, partition, key, options);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot open log partition " + key, e);
            }
            OPEN.put(key, log);
        }
        USERS.merge(log, 1, Integer::sum);
        return log;
    }

    /** Releases one use of {@code log}; the last closes its files. */
    public static synchronized void close(PartitionLog log) {
        Integer users = USERS.get(log);
        if (users == null) {
            return;
        }
        if (users > 1) {
            USERS.put(log, users - 1);
            return;
        }
        USERS.remove(log);
        OPEN.values().remove(log);
        try {
            log.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A reader of {@code log} positioned at {@code offset}. */
    public static PartitionReader reader(PartitionLog log, long offset) throws IOException {
        return new PartitionReader(log, offset);
    }
}
