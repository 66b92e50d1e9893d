package dev.weir.internal.log;

import dev.weir.api.log.LogOptions;
import dev.weir.internal.io.DirectoryLock;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * The log directories and partitions open in this JVM, shared by path and reference-counted, so a
 * partition has one writer however many {@code DurableLog} handles, sources and sinks use it.
 *
 * <p><b>Writers hold the directory's lock.</b> Writing a log directory needs its {@link
 * DirectoryLock} ({@code <log directory>/.lock}): the first writer in this JVM takes it, later ones
 * share it, the last one to close releases it; a writer in another process is refused with the
 * directory and the holder's PID, since two processes appending to one partition would number their
 * records from the same offset and overwrite each other's acknowledged data. A writable partition
 * counts as a writer while open.
 *
 * <p><b>Readers need no lock.</b> A reader shares the writable partition if this JVM writes the
 * directory; otherwise it gets a read-only view, which never writes, repairs or deletes anything
 * and shows only records before the writer's recovery point, following it as it moves: a job can
 * read a topic another process writes (chained jobs), and {@code weir log tail} works beside a
 * running writer. Nothing a view shows is ever cut by a later recovery.
 */
public final class PartitionLogs {
    private static final String WHAT = "durable log";

    /** A locked log directory and how many writers in this JVM use it. */
    private static final class Locked {
        final DirectoryLock lock;
        int writers;

        Locked(DirectoryLock lock) {
            this.lock = lock;
        }
    }

    private static final Map<Path, Locked> LOCKED = new HashMap<>();
    private static final Map<Path, PartitionLog> WRITABLE = new HashMap<>();
    private static final Map<Path, PartitionLog> VIEWS = new HashMap<>();
    private static final Map<PartitionLog, Integer> USERS = new IdentityHashMap<>();
    private static final Map<PartitionLog, Path> ROOT = new IdentityHashMap<>();

    private PartitionLogs() {}

    /**
     * The canonical path of a log directory, so two spellings (relative, symbolic links) of one
     * directory share one lock and one set of partitions.
     */
    public static Path canonical(Path directory) {
        Path absolute = directory.toAbsolutePath().normalize();
        try {
            return Files.exists(absolute) ? absolute.toRealPath() : absolute;
        } catch (IOException e) {
            return absolute;
        }
    }

    /**
     * Takes, or shares, this JVM's lock on the log directory {@code root} (canonical, existing) for
     * one more writer.
     *
     * @throws IllegalStateException if another process holds it, naming the directory and PID
     */
    public static synchronized void lockForWriting(Path root) {
        Locked locked = LOCKED.get(root);
        if (locked == null) {
            locked = new Locked(DirectoryLock.acquire(root, WHAT));
            LOCKED.put(root, locked);
        }
        locked.writers++;
    }

    /** Releases one writer's use of {@code root}'s lock; the last releases the lock. */
    public static synchronized void unlockForWriting(Path root) {
        Locked locked = LOCKED.get(root);
        if (locked == null) {
            return;
        }
        if (--locked.writers == 0) {
            LOCKED.remove(root);
            locked.lock.close();
        }
    }

    /** True if this JVM holds the lock of the log directory {@code root}. */
    public static synchronized boolean writes(Path root) {
        return LOCKED.containsKey(root);
    }

    /**
     * Opens partition {@code partition} of {@code topic} in the log directory {@code root} for
     * writing, or shares the one open; the caller holds {@code root}'s lock ({@link
     * #lockForWriting}), and the partition holds it too while open.
     */
    public static synchronized PartitionLog openWritable(
            Path root, String topic, int partition, LogOptions options) {
        if (!writes(root)) {
            throw new IllegalStateException(
                    "internal: writing " + root + " without holding its lock");
        }
        Path key = root.resolve(topic).resolve(Integer.toString(partition));
        PartitionLog log = WRITABLE.get(key);
        if (log == null) {
            try {
                log = PartitionLog.open(topic, partition, key, options);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot open log partition " + key, e);
            }
            WRITABLE.put(key, log);
            ROOT.put(log, root);
            lockForWriting(root);
        }
        USERS.merge(log, 1, Integer::sum);
        return log;
    }

    /**
     * Opens partition {@code partition} of {@code topic} in the log directory {@code root} for
     * reading: this JVM's writable partition if it writes {@code root}, else a shared read-only
     * view.
     */
    public static synchronized PartitionLog openReadable(
            Path root, String topic, int partition, LogOptions options) {
        if (writes(root)) {
            return openWritable(root, topic, partition, options);
        }
        Path key = root.resolve(topic).resolve(Integer.toString(partition));
        PartitionLog log = VIEWS.get(key);
        if (log != null && !log.filesOpen()) {
            // An interrupted reader closed the shared view's files: its users fail and close it;
            // new readers get a fresh view instead of failing with it.
            VIEWS.remove(key);
            log = null;
        }
        if (log == null) {
            try {
                log = PartitionLog.openView(topic, partition, key, options);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot open log partition " + key, e);
            }
            VIEWS.put(key, log);
        }
        USERS.merge(log, 1, Integer::sum);
        return log;
    }

    /** Releases one use of {@code log}; the last closes its files (and a writer's lock use). */
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
        WRITABLE.values().remove(log);
        VIEWS.values().remove(log);
        Path root = ROOT.remove(log);
        try {
            log.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            if (root != null) {
                unlockForWriting(root);
            }
        }
    }

    /** A reader of {@code log} positioned at {@code offset}. */
    public static PartitionReader reader(PartitionLog log, long offset) throws IOException {
        return new PartitionReader(log, offset);
    }
}
