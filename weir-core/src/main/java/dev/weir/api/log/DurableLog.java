package dev.weir.api.log;

import dev.weir.internal.log.LogDirectory;
import java.nio.file.Path;
import java.util.List;

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
 *
 * <p>This class is the log's public face; the implementation ({@code LogDirectory} and the
 * partitions) is internal to Weir and may change.
 */
public final class DurableLog implements AutoCloseable {
    private final LogDirectory log;

    private DurableLog(LogDirectory log) {
        this.log = log;
    }

    /**
     * Opens the log in {@code directory} for reading and writing, creating it if needed, and takes
     * (or, within this JVM, shares) the directory's lock.
     *
     * @param directory the log's directory; one sub-directory per topic
     * @param options how data is stored and forced to disk; use {@link LogOptions#defaults()}
     *     unless you need otherwise
     * @return a handle; close it when done
     * @throws java.io.UncheckedIOException if the directory cannot be created
     * @throws LogCorruptedException if a partition is damaged before its recovery point
     * @throws IllegalStateException if another process has the directory open for writing; the
     *     message names the directory and that process's PID
     */
    public static DurableLog open(Path directory, LogOptions options) {
        return new DurableLog(LogDirectory.open(directory, options));
    }

    /**
     * Opens the log in {@code directory} for reading only: no lock, nothing written or repaired. A
     * partition shows the records its writer made durable (those before its recovery point), and
     * more as the writer appends; if this JVM writes the directory, its partitions are shared.
     * {@link #createTopic}, {@link #append}, {@link #appendTransaction} and {@link #flush} are
     * refused.
     *
     * @param directory the log's directory, written by another handle or process
     * @param options how the log was stored; only the settings that affect reading matter
     * @return a read-only handle; close it when done
     */
    public static DurableLog openReadOnly(Path directory, LogOptions options) {
        return new DurableLog(LogDirectory.openReadOnly(directory, options));
    }

    /**
     * The log's directory.
     *
     * @return the path this handle was opened with
     */
    public Path directory() {
        return log.directory();
    }

    /**
     * Creates {@code topic} with {@code partitions} partitions; does nothing if it exists with that
     * many, refuses if it exists with another count.
     *
     * @param topic the name; see {@link #checkTopicName} for what is allowed
     * @param partitions the number of partitions, 1 to 10,000; fixed for the topic's life
     * @throws IllegalArgumentException if the name is not allowed, the count is out of range, or
     *     the topic exists with another count
     * @throws IllegalStateException if this handle is read-only
     */
    public void createTopic(String topic, int partitions) {
        log.createTopic(topic, partitions);
    }

    /**
     * Whether {@code topic} exists.
     *
     * @param topic the topic's name
     * @return true if it was created in this directory
     * @throws IllegalArgumentException if the name is not allowed (see {@link #checkTopicName})
     */
    public boolean hasTopic(String topic) {
        return log.hasTopic(topic);
    }

    /**
     * The number of partitions of {@code topic}.
     *
     * @param topic the topic's name
     * @return the count it was created with
     * @throws IllegalArgumentException if the name is not allowed or the topic does not exist
     * @throws IllegalStateException if the topic's file is damaged
     */
    public int partitions(String topic) {
        return log.partitions(topic);
    }

    /**
     * The names of all topics.
     *
     * @return the names, sorted; empty if the directory does not exist
     */
    public List<String> topics() {
        return log.topics();
    }

    /**
     * Checks, without opening anything, that {@code topic} is an allowed name of an existing topic
     * with partition {@code partition}: for a caller that wants to refuse a bad argument before it
     * starts work, such as {@code weir log append} before it reads its input. Every other method
     * taking a topic and partition checks the same, with the same messages.
     *
     * @param topic the topic's name
     * @param partition the partition, from 0
     * @throws IllegalArgumentException if the name is not allowed (see {@link #checkTopicName}),
     *     the topic does not exist, or it has no such partition; the message says which
     * @throws IllegalStateException if this handle is closed or the topic's file is damaged
     */
    public void checkPartition(String topic, int partition) {
        log.checkPartition(topic, partition);
    }

    /**
     * Appends {@code records} to a partition as one batch; returns the first one's offset. The
     * records are readable once the call returns, and on disk as the {@link LogOptions.FsyncPolicy}
     * says.
     *
     * @param topic the topic's name
     * @param partition the partition, from 0
     * @param records the payloads, in order; an empty list appends nothing
     * @return the offset of the first record; the end offset if {@code records} is empty
     * @throws java.io.UncheckedIOException if the write fails; the partition is then unchanged
     * @throws IllegalStateException if this handle is read-only or closed
     * @throws IllegalArgumentException if topic or partition are refused as by {@link
     *     #checkPartition}
     */
    public long append(String topic, int partition, List<byte[]> records) {
        return log.append(topic, partition, records);
    }

    /**
     * Appends {@code records} to a partition as one committed transaction: a BEGIN marker, the
     * records and a COMMIT marker, written (and forced, as the {@link LogOptions.FsyncPolicy} says)
     * as one batch; returns the BEGIN marker's offset. {@link #read} and {@code Sources.log}
     * deliver the records only once the COMMIT is in the log, so after a crash that tore the batch
     * a reader sees all of them or none, where a torn {@link #append} keeps the records before the
     * tear. Each record and marker takes one offset.
     *
     * <p>{@code transaction} is the caller's id, stored in the markers and records ({@link
     * LogEntry#transaction()}); it is not checked for uniqueness. {@link dev.weir.api.sink.LogSink}
     * numbers its own transactions and looks for their COMMITs after a crash: do not append
     * transactions to a topic a {@code LogSink} writes.
     *
     * @param topic the topic's name
     * @param partition the partition, from 0
     * @param records the payloads, in order; an empty list still writes both markers
     * @param transaction the caller's id for this transaction
     * @return the offset of the BEGIN marker; the records follow it, then the COMMIT
     * @throws java.io.UncheckedIOException if the write fails; the partition is then unchanged
     * @throws IllegalStateException if this handle is read-only or closed
     * @throws IllegalArgumentException if topic or partition are refused as by {@link
     *     #checkPartition}
     */
    public long appendTransaction(
            String topic, int partition, List<byte[]> records, long transaction) {
        return log.appendTransaction(topic, partition, records, transaction);
    }

    /**
     * The next offset of a partition (one past its last record).
     *
     * @param topic the topic's name
     * @param partition the partition, from 0
     * @return the offset the next append will get; on a read-only handle, one past the last durable
     *     record the writer made
     */
    public long endOffset(String topic, int partition) {
        return log.endOffset(topic, partition);
    }

    /**
     * The oldest offset still stored: retention may have deleted the ones before it.
     *
     * @param topic the topic's name
     * @param partition the partition, from 0
     * @return the first offset still stored; 0 until retention deletes a segment
     */
    public long startOffset(String topic, int partition) {
        return log.startOffset(topic, partition);
    }

    /**
     * Reads up to {@code max} committed records with offsets from {@code offset} on: plain records,
     * and the records of a transaction (as {@link dev.weir.api.sink.LogSink} writes them) once its
     * COMMIT is in the log; never the transaction markers, nor records of a transaction that did
     * not commit (cut short by a crash). This is Kafka's {@code read_committed}, and the default
     * here because Weir promises exactly-once: what {@code Sources.log} delivers. Reading on from
     * the last returned offset + 1 misses and repeats nothing, even inside a transaction. {@link
     * #readUncommitted} shows everything as stored; {@link #scan} reads the same records without
     * copying them.
     *
     * @param topic the topic's name
     * @param partition the partition, from 0
     * @param offset the first offset to read, within {@link #startOffset} .. {@link #endOffset}
     * @param max the most records to return
     * @return the records, in offset order; empty if nothing is committed from {@code offset} on
     * @throws IllegalArgumentException if {@code offset} is out of range, or topic or partition are
     *     refused as by {@link #checkPartition}
     * @throws LogCorruptedException if a record fails its checksum
     */
    public List<LogRecord> read(String topic, int partition, long offset, int max) {
        return log.read(topic, partition, offset, max);
    }

    /**
     * Hands up to {@code maxRecords} committed records with offsets from {@code fromOffset} on to
     * {@code scanner}, in offset order, without copying them: the records {@link #read} returns,
     * for readers that process a partition at memory speed (checksums, counts, decoding into their
     * own structures). The payload is a slice of the reader's buffer, valid only during the call
     * (see {@link RecordScanner}); a transaction's records are copied once, to be held until its
     * COMMIT.
     *
     * <pre>{@code
     * CRC32C crc = new CRC32C();
     * RecordScanner checksum = (offset, buffer, at, length) -> crc.update(buffer, at, length);
     * long next = log.startOffset("orders", 0);
     * for (long after; (after = log.scan("orders", 0, next, 4096, checksum)) > next; ) {
     *     next = after;
     * } // it returned next: nothing more is committed, yet
     * }</pre>
     *
     * @param topic the topic's name
     * @param partition the partition, from 0
     * @param fromOffset the first offset to scan
     * @param maxRecords the most records to hand on
     * @param scanner called once per committed record, on this thread
     * @return the offset to scan from next: one past the last record handed to {@code scanner}, or
     *     {@code fromOffset} if none was (nothing is committed from there on, yet). Scanning on
     *     from it misses and repeats nothing, even inside a transaction.
     * @throws IllegalArgumentException if {@code fromOffset} is not within {@link #startOffset} ..
     *     {@link #endOffset}, or topic or partition are refused as by {@link #checkPartition}
     */
    public long scan(
            String topic, int partition, long fromOffset, int maxRecords, RecordScanner scanner) {
        return log.scan(topic, partition, fromOffset, maxRecords, scanner);
    }

    /**
     * Reads up to {@code max} records from {@code offset} on as stored: transaction markers and
     * records of transactions that never committed included (Kafka's {@code read_uncommitted}; for
     * inspection, such as {@code weir log tail --show-markers}).
     *
     * @param topic the topic's name
     * @param partition the partition, from 0
     * @param offset the first offset to read, within {@link #startOffset} .. {@link #endOffset}
     * @param max the most entries to return
     * @return the entries, in offset order
     * @throws IllegalArgumentException if {@code offset} is out of range, or topic or partition are
     *     refused as by {@link #checkPartition}
     */
    public List<LogEntry> readUncommitted(String topic, int partition, long offset, int max) {
        return log.readUncommitted(topic, partition, offset, max);
    }

    /**
     * Forces every open partition to disk, whatever the {@link LogOptions.FsyncPolicy}.
     *
     * @throws java.io.UncheckedIOException if a force fails
     * @throws IllegalStateException if this handle is read-only
     */
    public void flush() {
        log.flush();
    }

    /** Closes the partitions this handle opened and releases its use of the directory's lock. */
    @Override
    public void close() {
        log.close();
    }

    /**
     * Refuses a topic name that is not one plain directory name under the log directory (so a name
     * can never reach another directory: "..", "a/b", absolute paths, NUL, non-ASCII look-alikes):
     * 1 to 100 ASCII letters, digits, '-', '_' and '.', not starting with '.' (so never "." or
     * "..", nor Weir's own hidden entries such as ".staging" and ".lock"). Every lookup calls it,
     * not only {@link #createTopic}.
     *
     * @param topic the name to check
     * @throws IllegalArgumentException naming the rule
     */
    public static void checkTopicName(String topic) {
        LogDirectory.checkTopicName(topic);
    }
}
