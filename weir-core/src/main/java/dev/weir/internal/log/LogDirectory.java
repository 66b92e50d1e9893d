package dev.weir.internal.log;

import dev.weir.api.log.DurableLog;
import dev.weir.api.log.LogEntry;
import dev.weir.api.log.LogOptions;
import dev.weir.api.log.LogRecord;
import dev.weir.api.log.RecordScanner;
import dev.weir.internal.io.DurableFiles;
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
 * A log directory opened by one handle: the implementation behind {@link DurableLog}, for Weir's
 * own connectors ({@code LogSource}, {@code LogSinkWriter}) and tests, which also need its
 * partitions ({@link #partition}).
 *
 * <p>Topic metadata lives in {@code <topic>/topic.properties}; partitions are opened on first use
 * through {@link PartitionLogs}, which shares them (and the directory's lock) between the handles
 * of this JVM: a writable handle holds one use of the lock from {@link #open} to {@link #close}; a
 * read-only one takes none and gets views that follow the writer (docs/design/004-durable-log.md).
 * Thread-safe; a failure to read or write is an {@link UncheckedIOException}, damage a {@link
 * dev.weir.api.log.LogCorruptedException}.
 */
public final class LogDirectory implements AutoCloseable {
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

    /**
     * The reader the last scan stopped with, so that a scan going on from where the last one
     * stopped (a loop over a partition) goes on reading instead of seeking and filling a new
     * buffer. One per handle, since a reader holds a 1 MiB buffer; taken by one scan at a time.
     */
    private IdleReader idle;

    private record IdleReader(PartitionLog log, PartitionReader reader) {}

    private LogDirectory(Path directory, Path root, LogOptions options, boolean writable) {
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
    public static LogDirectory open(Path directory, LogOptions options) {
        try {
            Files.createDirectories(directory);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create log directory " + directory, e);
        }
        Path root = PartitionLogs.canonical(directory);
        PartitionLogs.lockForWriting(root);
        return new LogDirectory(directory, root, options, true);
    }

    /**
     * Opens the log in {@code directory} for reading only: no lock, nothing written or repaired. A
     * partition shows the records its writer made durable (those before its recovery point), and
     * more as the writer appends; if this JVM writes the directory, its partitions are shared.
     * {@link #createTopic}, {@link #append} and {@link #flush} are refused.
     */
    public static LogDirectory openReadOnly(Path directory, LogOptions options) {
        return new LogDirectory(directory, PartitionLogs.canonical(directory), options, false);
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

    /**
     * Checks that {@code topic} is an allowed name of an existing topic and has {@code partition};
     * opens nothing.
     *
     * @throws IllegalArgumentException naming the rule, the missing topic or the partition range
     * @throws IllegalStateException if this handle is closed or the topic's file is damaged
     */
    public synchronized void checkPartition(String topic, int partition) {
        partitionsOf(topic, partition);
    }

    /**
     * The partitions of {@code topic}, opened or not, after the checks of {@link #checkPartition}.
     */
    private PartitionLog[] partitionsOf(String topic, int partition) {
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
        return logs;
    }

    /**
     * The partition, opened on first use (writable, or for a read-only handle this JVM's writable
     * partition or a view) and closed with this handle.
     */
    public synchronized PartitionLog partition(String topic, int partition) {
        PartitionLog[] logs = partitionsOf(topic, partition);
        if (logs[partition] == null) {
            logs[partition] =
                    writable
                            ? PartitionLogs.openWritable(root, topic, partition, options)
                            : PartitionLogs.openReadable(root, topic, partition, options);
        }
        return logs[partition];
    }

    /** Names the partition and the cause; a failed append leaves the partition unchanged. */
    private static String appendFailed(String topic, int partition, IOException e) {
        return "append to "
                + topic
                + "-"
                + partition
                + " failed ("
                + e
                + "); the partition is unchanged: none of this batch was appended";
    }

    /** Appends {@code records} to a partition as one batch; returns the first one's offset. */
    public long append(String topic, int partition, List<byte[]> records) {
        checkWritable("append to '" + topic + "'");
        try {
            return partition(topic, partition).append(records);
        } catch (IOException e) {
            throw new UncheckedIOException(appendFailed(topic, partition, e), e);
        }
    }

    /**
     * Appends {@code records} as committed transaction {@code transaction} (BEGIN, the records,
     * COMMIT with an empty payload, in one write); returns the BEGIN marker's offset.
     */
    public long appendTransaction(
            String topic, int partition, List<byte[]> records, long transaction) {
        checkWritable("append to '" + topic + "'");
        try {
            return partition(topic, partition).appendTransaction(records, transaction);
        } catch (IOException e) {
            throw new UncheckedIOException(appendFailed(topic, partition, e), e);
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

    /** Up to {@code max} committed records from {@code offset} on, copied (see {@link #scan}). */
    public List<LogRecord> read(String topic, int partition, long offset, int max) {
        List<LogRecord> records = new ArrayList<>();
        scan(
                topic,
                partition,
                offset,
                max,
                (o, buffer, at, length) ->
                        records.add(new LogRecord(o, Arrays.copyOfRange(buffer, at, at + length))));
        return records;
    }

    /**
     * Hands up to {@code max} committed records from {@code offset} on to {@code scanner}, plain
     * records straight from the reader's buffer ({@link CommittedScan}); returns one past the last
     * record handed on, or {@code offset} if none was.
     */
    public long scan(String topic, int partition, long offset, int max, RecordScanner scanner) {
        CommittedScan committed = new CommittedScan(scanner, max, offset);
        PartitionLog log = partition(topic, partition);
        try {
            PartitionReader reader = takeReader(log, offset);
            while (!committed.full()
                    && reader.read(committed, Math.min(4096, max - committed.delivered())) > 0) {
                // the visitor hands on
            }
            if (reader.position() == committed.next()) {
                keepReader(log, reader);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return committed.next();
    }

    /**
     * The idle reader if it stopped at {@code offset} of {@code log}, else a new one seeking there.
     * A reader stopped where its scan's {@link CommittedScan#next()} is has just handed on a plain
     * record, so no transaction was open: going on with it reads what a new reader would.
     */
    private PartitionReader takeReader(PartitionLog log, long offset) throws IOException {
        IdleReader last;
        synchronized (this) {
            last = idle;
            idle = null;
        }
        if (last != null
                && last.log() == log
                && last.reader().position() == offset
                && offset >= log.startOffset()) { // else retention deleted its segment: seek
            return last.reader();
        }
        return PartitionLogs.reader(log, offset);
    }

    private synchronized void keepReader(PartitionLog log, PartitionReader reader) {
        if (!closed) {
            idle = new IdleReader(log, reader);
        }
    }

    /** Up to {@code max} records from {@code offset} on as stored, markers included. */
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

    /** What a stored record is, from its attributes byte. */
    static LogEntry.Kind kind(long offset, byte attributes) {
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
            idle = null;
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
