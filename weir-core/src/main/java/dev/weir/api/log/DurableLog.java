package dev.weir.api.log;

import dev.weir.internal.io.DurableFiles;
import dev.weir.internal.log.PartitionLog;
import dev.weir.internal.log.PartitionLogs;
import dev.weir.internal.log.PartitionReader;
import dev.weir.internal.log.RecordVisitor;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Pattern;

/**
 * An embedded, durable, partitioned log: Weir's replayable source and transactional sink target
 * when no external system is wanted.
 *
 * <p>Topics have a fixed number of partitions; each partition is an append-only sequence of segment
 * files whose records carry a CRC32C, with a sparse offset index. Appends are batched and forced to
 * disk as the {@link LogOptions.FsyncPolicy} says, and after each force a per-partition recovery
 * point records how far the partition is on disk; after a crash only what lies after it can be cut
 * as a torn tail on open, and damage before it is a {@link LogCorruptedException}. Thread-safe.
 *
 * <p><b>One writing process per directory.</b> {@link #open} takes an exclusive OS lock on the
 * directory ({@code .lock}, released by the OS if the process dies): a second process that opens it
 * for writing is refused, naming the directory and the holder's PID. Opening the same directory
 * several times in one JVM shares the lock and returns views on the same partitions. {@link
 * #openReadOnly} takes no lock and writes nothing: it reads what the writer (in any process) made
 * durable, following it as it appends — for {@code weir log tail}, or a job reading a topic another
 * job writes.
 *
 * <pre>{@code
 * try (DurableLog log = DurableLog.open(dir, LogOptions.defaults())) {
 *     log.createTopic("orders", 4);
 *     log.append("orders", 0, List.of(bytes1, bytes2));
 *     List<LogRecord> records = log.read("orders", 0, 0, 100);
 * }
 * }</pre>
 */
public final class DurableLog implements AutoCloseable {
    /**
     * One directory name: ASCII letters, digits, '-', '_' and '.', not starting with '.' (so never
     * "." or "..", nor Weir's own hidden entries such as ".staging" and ".lock").
     */
    private static final Pattern TOPIC = Pattern.compile("[A-Za-z0-9_-][A-Za-z0-9_.-]{0,99}");

    private final Path directory;
    private final Path root;
    private final LogOptions options;
    private final boolean writable;
    private final Map<String, PartitionLog[]> topics = new HashMap<>();
    private boolean closed;

    private DurableLog(Path directory, Path root, LogOptions options, boolean writable) {
        this.directory = directory;
        this.root = root;
        this.options = options;
        this.writable = writable;
    }

    /**
     * Opens the log in {@code directory} for reading and writing, creating it if needed, and takes
     * (or, within this JVM, shares) the directory's lock.
     *
     * @throws IllegalStateException if another process has the directory open for writing; the
     *     message names the directory and that process's PID
     */
    public static DurableLog open(Path directory, LogOptions options) {
        try {
            Files.createDirectories(directory);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create log directory " + directory, e);
        }
        Path root = PartitionLogs.canonical(directory);
        PartitionLogs.lockForWriting(root);
        return new DurableLog(directory, root, options, true);
    }

    /**
     * Opens the log in {@code directory} for reading only: no lock, nothing written or repaired. A
     * partition shows the records its writer made durable (those before its recovery point), and
     * more as the writer appends; if this JVM writes the directory, its partitions are shared.
     * {@link #createTopic}, {@link #append} and {@link #flush} are refused.
     */
    public static DurableLog openReadOnly(Path directory, LogOptions options) {
        return new DurableLog(directory, PartitionLogs.canonical(directory), options, false);
    }

    public Path directory() {
        return directory;
    }

    /**
     * Creates {@code topic} with {@code partitions} partitions; does nothing if it exists with that
     * many, refuses if it exists with another count.
     */
    public synchronized void createTopic(String topic, int partitions) {
        checkTopicName(topic);
        checkWritable("create topic '" + topic + "'");
        if (partitions < 1 || partitions > 10_000) {
            throw new IllegalArgumentException("partitions must be within 1..10000: " + partitions);
        }
        Path meta = directory.resolve(topic).resolve("topic.properties");
        if (Files.exists(meta)) {
            int existing = partitions(topic);
            if (existing != partitions) {
                throw new IllegalArgumentException(
                        "topic '"
                                + topic
                                + "' exists with "
                                + existing
                                + " partitions, not "
                                + partitions);
            }
            return;
        }
        try {
            Files.createDirectories(meta.getParent());
            String text = "partitions=" + partitions + "\n";
            DurableFiles.writeAtomically(meta, text.getBytes(StandardCharsets.UTF_8));
            DurableFiles.fsyncDirectory(directory);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create topic " + topic, e);
        }
    }

    /** True if {@code topic} exists. */
    public boolean hasTopic(String topic) {
        checkTopicName(topic);
        return Files.exists(directory.resolve(topic).resolve("topic.properties"));
    }

    /** The number of partitions of {@code topic}. */
    public int partitions(String topic) {
        checkTopicName(topic);
        Path meta = directory.resolve(topic).resolve("topic.properties");
        if (!Files.exists(meta)) {
            throw new IllegalArgumentException(
                    "log "
                            + directory
                            + " has no topic '"
                            + topic
                            + "'; create it first (weir log create)");
        }
        Properties properties = new Properties();
        try (var in = Files.newInputStream(meta)) {
            properties.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + meta, e);
        }
        String value = properties.getProperty("partitions");
        try {
            int partitions = Integer.parseInt(value == null ? "" : value.trim());
            if (partitions >= 1 && partitions <= 10_000) {
                return partitions;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalStateException(
                "topic file "
                        + meta
                        + " is damaged: 'partitions' is "
                        + (value == null ? "missing" : "'" + value + "'")
                        + ", not a count within 1..10000; restore it (it held the line"
                        + " partitions=<count> the topic was created with)");
    }

    /** The names of all topics. */
    public List<String> topics() {
        List<String> names = new ArrayList<>();
        try (var entries = Files.list(directory)) {
            entries.filter(p -> TOPIC.matcher(p.getFileName().toString()).matches())
                    .filter(p -> Files.exists(p.resolve("topic.properties")))
                    .forEach(p -> names.add(p.getFileName().toString()));
        } catch (NoSuchFileException e) {
            return names; // a read-only view of a log nobody created yet
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        names.sort(String::compareTo);
        return names;
    }

    /** The internal partition; for Weir's own connectors. */
    public synchronized PartitionLog partition(String topic, int partition) {
        if (closed) {
            throw new IllegalStateException("log " + directory + " is closed");
        }
        checkTopicName(topic);
        PartitionLog[] logs = topics.get(topic);
        if (logs == null) {
            logs = new PartitionLog[partitions(topic)];
            topics.put(topic, logs);
        }
        if (partition < 0 || partition >= logs.length) {
            throw new IllegalArgumentException(
                    "topic '"
                            + topic
                            + "' has partitions 0.."
                            + (logs.length - 1)
                            + ", not "
                            + partition);
        }
        if (logs[partition] == null) {
            logs[partition] =
                    writable
                            ? PartitionLogs.openWritable(root, topic, partition, options)
                            : PartitionLogs.openReadable(root, topic, partition, options);
        }
        return logs[partition];
    }

    /** Appends {@code records} to a partition as one batch; returns the first one's offset. */
    public long append(String topic, int partition, List<byte[]> records) {
        checkWritable("append to '" + topic + "'");
        try {
            return partition(topic, partition).append(records);
        } catch (IOException e) {
            throw new UncheckedIOException("append to " + topic + "-" + partition + " failed", e);
        }
    }

    /** The next offset of a partition (one past its last record). */
    public long endOffset(String topic, int partition) {
        try {
            return partition(topic, partition).refresh();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The oldest offset still stored. */
    public long startOffset(String topic, int partition) {
        return partition(topic, partition).startOffset();
    }

    /**
     * Reads up to {@code max} committed records with offsets from {@code offset} on: plain records,
     * and the records of a transaction (as {@link dev.weir.api.sink.LogSink} writes them) once its
     * COMMIT is in the log; never the transaction markers, nor records of a transaction that did
     * not commit (cut short by a crash). This is Kafka's {@code read_committed}, and the default
     * here because Weir promises exactly-once: what {@code Sources.log} delivers. Reading on from
     * the last returned offset + 1 misses and repeats nothing, even inside a transaction. {@link
     * #readUncommitted} shows everything as stored.
     */
    public List<LogRecord> read(String topic, int partition, long offset, int max) {
        CommittedRecords committed = new CommittedRecords(max);
        try {
            PartitionReader reader = PartitionLogs.reader(partition(topic, partition), offset);
            while (!committed.full()
                    && reader.read(committed, Math.min(4096, max - committed.records.size())) > 0) {
                // the visitor collects
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return committed.records;
    }

    /**
     * Reads up to {@code max} records from {@code offset} on as stored: transaction markers and
     * records of transactions that never committed included (Kafka's {@code read_uncommitted}; for
     * inspection, such as {@code weir log tail --show-markers}).
     */
    public List<LogEntry> readUncommitted(String topic, int partition, long offset, int max) {
        List<LogEntry> entries = new ArrayList<>();
        try {
            PartitionReader reader = PartitionLogs.reader(partition(topic, partition), offset);
            while (entries.size() < max
                    && reader.read(
                                    (o, attributes, txn, buffer, at, length) ->
                                            entries.add(
                                                    new LogEntry(
                                                            o,
                                                            kind(o, attributes),
                                                            txn,
                                                            Arrays.copyOfRange(
                                                                    buffer, at, at + length))),
                                    max - entries.size())
                            > 0) {
                // the visitor collects
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return entries;
    }

    private static LogEntry.Kind kind(long offset, byte attributes) {
        return switch (attributes) {
            case PartitionLog.DATA -> LogEntry.Kind.DATA;
            case PartitionLog.TXN_DATA -> LogEntry.Kind.TRANSACTION_DATA;
            case PartitionLog.TXN_BEGIN -> LogEntry.Kind.BEGIN;
            case PartitionLog.TXN_COMMIT -> LogEntry.Kind.COMMIT;
            default ->
                    throw new IllegalStateException(
                            "unknown record attributes " + attributes + " at offset " + offset);
        };
    }

    /**
     * Collects committed records: plain ones at once; a transaction's once its COMMIT arrives. A
     * transaction is open from its BEGIN — or from its first record, when the read starts inside it
     * — and abandoned by anything but its own records and COMMIT (only a crash leaves one).
     */
    private static final class CommittedRecords implements RecordVisitor {
        final List<LogRecord> records = new ArrayList<>();
        private final int max;
        private final List<LogRecord> open = new ArrayList<>();
        private long openTransaction = NONE;
        private static final long NONE = Long.MIN_VALUE;

        CommittedRecords(int max) {
            this.max = max;
        }

        boolean full() {
            return records.size() >= max;
        }

        @Override
        public void accept(
                long offset,
                byte attributes,
                long transaction,
                byte[] buffer,
                int payloadOffset,
                int length) {
            if (full()) {
                return; // the rest of this chunk: read again from the last offset + 1
            }
            switch (kind(offset, attributes)) {
                case DATA -> {
                    abandon();
                    records.add(record(offset, buffer, payloadOffset, length));
                }
                case BEGIN -> {
                    abandon();
                    openTransaction = transaction;
                }
                case TRANSACTION_DATA -> {
                    if (openTransaction != transaction) {
                        abandon();
                        openTransaction = transaction; // the read started inside it
                    }
                    open.add(record(offset, buffer, payloadOffset, length));
                }
                case COMMIT -> {
                    if (openTransaction == transaction) {
                        for (LogRecord record : open) {
                            if (!full()) {
                                records.add(record);
                            }
                        }
                    }
                    abandon();
                }
            }
        }

        private void abandon() {
            open.clear();
            openTransaction = NONE;
        }

        private static LogRecord record(long offset, byte[] buffer, int at, int length) {
            return new LogRecord(offset, Arrays.copyOfRange(buffer, at, at + length));
        }
    }

    /** Forces every open partition to disk. */
    public synchronized void flush() {
        checkWritable("flush");
        for (PartitionLog[] logs : topics.values()) {
            for (PartitionLog log : logs) {
                if (log != null) {
                    try {
                        log.flush();
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }
            }
        }
    }

    /** Closes the partitions this handle opened and releases its use of the directory's lock. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            for (PartitionLog[] logs : topics.values()) {
                for (PartitionLog log : logs) {
                    if (log != null) {
                        PartitionLogs.close(log);
                    }
                }
            }
            topics.clear();
        } finally {
            if (writable) {
                PartitionLogs.unlockForWriting(root);
            }
        }
    }

    private void checkWritable(String what) {
        if (!writable) {
            throw new IllegalStateException(
                    "cannot "
                            + what
                            + ": log "
                            + directory
                            + " was opened read-only; use DurableLog.open (one process at a"
                            + " time may write a log directory)");
        }
    }

    /**
     * Refuses a topic name that is not one plain directory name under the log directory (so a name
     * can never reach another directory: "..", "a/b", absolute paths, NUL, non-ASCII look-alikes);
     * every lookup calls it, not only {@link #createTopic}.
     *
     * @throws IllegalArgumentException naming the rule
     */
    public static void checkTopicName(String topic) {
        if (topic == null || !TOPIC.matcher(topic).matches()) {
            throw new IllegalArgumentException(
                    "topic name "
                            + printable(topic)
                            + " is not allowed: use 1 to 100 ASCII letters, digits, '-', '_' or"
                            + " '.', not starting with '.' (a topic is one directory inside the"
                            + " log directory)");
        }
    }

    /** {@code name} quoted, with control and non-ASCII characters escaped, cut at 60 characters. */
    private static String printable(String name) {
        if (name == null) {
            return "null";
        }
        StringBuilder out = new StringBuilder("'");
        for (int i = 0; i < name.length() && i < 60; i++) {
            char c = name.charAt(i);
            if (c >= 0x20 && c < 0x7f) {
                out.append(c);
            } else {
                out.append(String.format("\\u%04x", (int) c));
            }
        }
        out.append(name.length() > 60 ? "'... (" + name.length() + " characters)" : "'");
        return out.toString();
    }
}
