package dev.weir.internal.log;

import dev.weir.api.log.LogCorruptedException;
import dev.weir.api.log.LogOptions;
import dev.weir.internal.checkpoint.StateFiles;
import dev.weir.internal.io.PowerCut;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One partition: a sequence of segment files of framed records.
 *
 * <pre>
 * record = int payloadLength, int crc32c(rest), long offset, byte attributes, long transaction,
 *          byte[payloadLength] payload
 * </pre>
 *
 * Appends are serialised by this object's monitor; readers run concurrently and see only records
 * below {@link #endOffset()}, which is published after the bytes are written (and forced, under
 * {@code EVERY_BATCH}). On open, the last segment is scanned and cut at the first torn or invalid
 * record: only a crash can leave one there, and what follows it was never acknowledged. After a
 * clean close (a marker names the last segment's length) the scan is skipped; every read still
 * checks each record's CRC32C.
 */
public final class PartitionLog {
    static final int HEADER_BYTES = 25;

    /** The largest batch one append takes: segment positions are ints. */
    static final int MAX_BATCH_BYTES = Integer.MAX_VALUE - 8;

    /** Written by a clean close: {@code <base offset> <length> <records>} of the last segment. */
    static final String CLEAN_MARKER = "clean-close";

    private static final Logger LOG = LoggerFactory.getLogger(PartitionLog.class);

    final String topic;
    final int partition;
    private final Path directory;
    private final LogOptions options;
    private final TreeMap<Long, Segment> segments = new TreeMap<>();
    private Segment active;
    private long nextOffset;
    private volatile long endOffset;
    private long lastForceNanos = System.nanoTime();
    private ByteBuffer scratch = ByteBuffer.allocate(64 * 1024);

    /** Why appends are refused (a failed append could not be undone), or null. */
    private String unusable;

    /**
     * The last segment (base offset, length) as its clean-close marker described it when trusted on
     * open, or -1: a close that finds that same segment at that same length (a reader's open and
     * close) writes nothing.
     */
    private long markedBase = -1;

    private long markedSize = -1;

    private PartitionLog(String topic, int partition, Path directory, LogOptions options) {
        this.topic = topic;
        this.partition = partition;
        this.directory = directory;
        this.options = options;
    }

    /** Opens (or creates) the partition in {@code directory}, recovering its tail. */
    static PartitionLog open(String topic, int partition, Path directory, LogOptions options)
            throws IOException {
        Files.createDirectories(directory);
        PartitionLog log = new PartitionLog(topic, partition, directory, options);
        PartitionFiles files = PartitionFiles.list(directory);
        log.warnAboutStrangers(files);
        List<Long> bases = new ArrayList<>(files.segmentBases());
        if (bases.isEmpty()) {
            Segment.create(directory, 0).close();
            bases.add(0L);
        }
        for (int i = 0; i < bases.size(); i++) {
            boolean last = i == bases.size() - 1;
            Segment segment = Segment.open(directory, bases.get(i), last);
            log.segments.put(segment.baseOffset, segment);
            if (last) {
                if (!log.closedCleanly(segment)) {
                    log.recover(segment);
                }
            } else {
                log.loadSealed(segment, bases.get(i + 1));
            }
        }
        log.active = log.segments.lastEntry().getValue();
        log.nextOffset = log.active.baseOffset + log.active.records;
        log.endOffset = log.nextOffset;
        return log;
    }

    /**
     * True if the last close left {@code segment} (the last one) exactly as it is now: its marker
     * names this segment and its current length, so everything in it was forced before the marker
     * was written and nothing was appended since; its index and count are then loaded instead of
     * rebuilt by a scan. Any append since, torn or not, changed the length, and the scan runs.
     */
    private boolean closedCleanly(Segment segment) throws IOException {
        Path marker = directory.resolve(CLEAN_MARKER);
        if (!Files.exists(marker)) {
            return false;
        }
        String[] fields = Files.readString(marker, StandardCharsets.UTF_8).trim().split(" ");
        try {
            if (fields.length != 3
                    || Long.parseLong(fields[0]) != segment.baseOffset
                    || Long.parseLong(fields[1]) != segment.size
                    || segment.loadIndex(segment.size) != null) {
                return false;
            }
            segment.records = Long.parseLong(fields[2]);
            markedBase = segment.baseOffset;
            markedSize = segment.size;
            return true;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    private void warnAboutStrangers(PartitionFiles files) {
        if (!files.strangers().isEmpty()) {
            LOG.warn(
                    "log {}-{}: ignoring {} in {}: not files Weir writes (Weir never reads or"
                            + " deletes them; move them elsewhere to silence this)",
                    topic,
                    partition,
                    files.strangers(),
                    directory);
        }
    }

    /**
     * Loads a sealed segment's index (rebuilding it from the segment if it is missing or fails its
     * checks) and walks the segment's framing from the last index entry: whole records with
     * consecutive offsets, ending exactly where the next segment begins (a truncated or extended
     * segment is corruption found on open; a damaged payload is found by the reader's CRC check).
     */
    private void loadSealed(Segment segment, long nextBase) throws IOException {
        String problem = segment.loadIndex(segment.size);
        if (problem != null) {
            if (!problem.equals("missing")) {
                LOG.warn(
                        "log {}-{}: the offset index {} is not usable ({}); rebuilding it from"
                                + " {}",
                        topic,
                        partition,
                        segment.indexFile,
                        problem,
                        segment.file.getFileName());
            }
            segment.clearIndex();
        }
        long[] from = segment.floorPosition(segment.size);
        segment.truncateIndexAt(from[1] + 1);
        long end = walkToEnd(segment, from[0], from[1]);
        if (end != nextBase) {
            throw new LogCorruptedException(
                    topic,
                    partition,
                    Math.min(end, nextBase),
                    segment.file.toString(),
                    end < nextBase
                            ? "the segment ends at offset "
                                    + end
                                    + " but the next segment starts at "
                                    + nextBase
                                    + ": records "
                                    + end
                                    + ".."
                                    + (nextBase - 1)
                                    + " are missing"
                            : "the segment runs to offset "
                                    + (end - 1)
                                    + " but the next segment starts at "
                                    + nextBase);
        }
        segment.records = nextBase - segment.baseOffset;
        if (problem != null) {
            segment.saveIndex();
        }
    }

    private void recover(Segment segment) throws IOException {
        SegmentScan scan =
                new SegmentScan(segment, segment.baseOffset, 0, options.indexIntervalBytes());
        scan.advance(segment.size);
        segment.records = scan.offset - segment.baseOffset;
        long validBytes = scan.position;
        if (validBytes < segment.size) {
            LOG.warn(
                    "log {}-{}: cut {} bytes of a torn write at the end of {}",
                    topic,
                    partition,
                    segment.size - validBytes,
                    segment.file.getFileName());
            segment.channel.truncate(validBytes);
            segment.channel.force(true);
            segment.size = validBytes;
            if (PowerCut.ON) {
                PowerCut.synced(segment.file, validBytes);
            }
        }
    }

    /**
     * Walks the framing of {@code segment} (lengths and offsets, not checksums: readers check
     * those) from the record {@code offset} at byte {@code position} to its end, indexing it;
     * returns the offset after its last record. A broken chain is corruption.
     */
    private long walkToEnd(Segment segment, long offset, long position) throws IOException {
        SegmentScan scan = new SegmentScan(segment, offset, position, options.indexIntervalBytes());
        scan.checksums = false;
        scan.advance(segment.size);
        if (scan.problem != null) {
            throw new LogCorruptedException(
                    topic, partition, scan.offset, segment.file.toString(), scan.problem);
        }
        return scan.offset;
    }

    /** Offset the next append gets; records below it are readable. */
    public long endOffset() {
        return endOffset;
    }

    /** The oldest offset still stored (retention may have deleted older ones). */
    public synchronized long startOffset() {
        return segments.firstKey();
    }

    /**
     * Appends {@code payloads} as one batch; returns the offset of the first. Forces the file as
     * the fsync policy says before the records become readable.
     */
    public synchronized long append(List<byte[]> payloads) throws IOException {
        if (payloads.isEmpty()) {
            return nextOffset;
        }
        return appendFramed(payloads, -1, false);
    }

    /**
     * Frames and writes {@code payloads}; the first and last are markers if {@code transactional}.
     */
    private long appendFramed(List<byte[]> payloads, long transaction, boolean transactional)
            throws IOException {
        checkAppendable();
        long total = 0;
        for (byte[] payload : payloads) {
            total += HEADER_BYTES + payload.length;
        }
        if (total > MAX_BATCH_BYTES) {
            throw new IllegalArgumentException(
                    "a batch of "
                            + total
                            + " bytes does not fit a segment (at most "
                            + MAX_BATCH_BYTES
                            + "); append it in smaller batches");
        }
        if (active.size > 0 && active.size + total > options.segmentBytes()) {
            roll();
        }
        if (scratch.capacity() < total) {
            scratch =
                    ByteBuffer.allocate(
                            (int)
                                    Math.min(
                                            MAX_BATCH_BYTES,
                                            Math.max(total, scratch.capacity() * 2L)));
        }
        ByteBuffer buffer = scratch;
        buffer.clear();
        long before = active.size;
        int indexBefore = active.indexEntries();
        long offset = nextOffset;
        long position = before;
        CRC32C crc = new CRC32C();
        int last = payloads.size() - 1;
        for (int i = 0; i <= last; i++) {
            byte[] payload = payloads.get(i);
            byte attributes =
                    !transactional ? DATA : i == 0 ? TXN_BEGIN : i == last ? TXN_COMMIT : TXN_DATA;
            active.maybeIndex(offset, position, options.indexIntervalBytes());
            int start = buffer.position();
            buffer.putInt(payload.length)
                    .putInt(0)
                    .putLong(offset)
                    .put(attributes)
                    .putLong(transaction)
                    .put(payload);
            crc.reset();
            crc.update(buffer.array(), start + 8, HEADER_BYTES - 8 + payload.length);
            buffer.putInt(start + 4, (int) crc.getValue());
            position += HEADER_BYTES + payload.length;
            offset++;
        }
        buffer.flip();
        try {
            long writeAt = before;
            while (buffer.hasRemaining()) {
                writeAt += LogWriteFaults.write(active.channel, buffer, writeAt, active.file);
            }
            if (PowerCut.ON) {
                PowerCut.wrote(active.file, before, writeAt);
            }
            force(position);
        } catch (IOException | RuntimeException e) {
            undoAppend(before, indexBefore, e);
            throw new IOException(
                    "append of "
                            + payloads.size()
                            + " record(s) to log "
                            + topic
                            + "-"
                            + partition
                            + " failed; nothing of it was kept and the next append gets offset "
                            + nextOffset
                            + " again",
                    e);
        }
        long first = nextOffset;
        active.size = position;
        active.records += payloads.size();
        nextOffset = offset;
        endOffset = offset;
        return first;
    }

    /**
     * Puts the active segment back as it was before a failed append: its index entries, its length,
     * and the file cut back to that length (torn bytes removed), so the next append reuses the
     * offsets. If the cut fails, appends are refused until the log is reopened (whose recovery cuts
     * the torn bytes: they are after the recovery point).
     */
    private void undoAppend(long before, int indexBefore, Exception failure) {
        active.truncateIndex(indexBefore);
        try {
            active.channel.truncate(before);
        } catch (IOException | RuntimeException e) {
            failure.addSuppressed(e);
            unusable =
                    "a failed append's torn bytes could not be cut from "
                            + active.file
                            + " ("
                            + e
                            + ")";
        }
    }

    private void checkAppendable() {
        if (unusable != null) {
            throw new IllegalStateException(
                    "log "
                            + topic
                            + "-"
                            + partition
                            + " takes no more appends: "
                            + unusable
                            + "; close and reopen the log (its recovery removes them)");
        }
    }

    /** Forces the active segment, {@code size} bytes long, if the fsync policy says so now. */
    private void force(long size) throws IOException {
        switch (options.fsync()) {
            case EVERY_BATCH -> forceActive(size);
            case INTERVAL -> {
                long now = System.nanoTime();
                if (now - lastForceNanos >= options.fsyncInterval().toNanos()) {
                    forceActive(size);
                    lastForceNanos = now;
                }
            }
            case NEVER -> {}
        }
    }

    private void forceActive(long size) throws IOException {
        LogWriteFaults.force(active.channel, active.file);
        if (PowerCut.ON) {
            PowerCut.synced(active.file, size);
        }
    }

    /** Record attribute: plain data outside any transaction. */
    public static final byte DATA = 0;

    /** Record attribute: data of the transaction in the record's transaction field. */
    public static final byte TXN_DATA = 1;

    /** Record attribute: a transaction's batch starts here (empty payload). */
    public static final byte TXN_BEGIN = 2;

    /** Record attribute: the transaction's batch is complete and committed (empty payload). */
    public static final byte TXN_COMMIT = 3;

    /**
     * Appends {@code payloads} as committed transaction {@code transaction}: BEGIN, the data, and
     * COMMIT in one write, so a read-committed reader sees all of it or nothing. Returns the offset
     * of the BEGIN marker.
     */
    public synchronized long appendTransaction(List<byte[]> payloads, long transaction)
            throws IOException {
        long begin = nextOffset;
        List<byte[]> batch = new ArrayList<>(payloads.size() + 2);
        batch.add(new byte[0]);
        batch.addAll(payloads);
        batch.add(new byte[0]);
        appendFramed(batch, transaction, true);
        return begin;
    }

    /** Forces everything appended so far to disk. */
    public synchronized void flush() throws IOException {
        forceActive(active.size);
    }

    /**
     * Seals the active segment (forced, index saved) and starts the next; if creating the new file
     * fails, the partition is as before and the append that asked fails.
     */
    private void roll() throws IOException {
        forceActive(active.size);
        active.saveIndex();
        Segment next = Segment.create(directory, nextOffset);
        try {
            StateFiles.fsyncDirectory(directory);
        } catch (IOException | RuntimeException e) {
            try {
                next.delete();
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
        segments.put(next.baseOffset, next);
        active = next;
        applyRetention();
    }

    /** Deletes the oldest sealed segments beyond the size or age limits. */
    public synchronized void applyRetention() throws IOException {
        long cutoff =
                options.retentionAge().isZero()
                        ? Long.MIN_VALUE
                        : Instant.now().minus(options.retentionAge()).toEpochMilli();
        long total = 0;
        for (Segment segment : segments.values()) {
            total += segment.size;
        }
        while (segments.size() > 1) {
            Segment oldest = segments.firstEntry().getValue();
            boolean tooBig = options.retentionBytes() > 0 && total > options.retentionBytes();
            boolean tooOld = Files.getLastModifiedTime(oldest.file).toMillis() < cutoff;
            if (!tooBig && !tooOld) {
                break;
            }
            segments.remove(oldest.baseOffset);
            total -= oldest.size;
            oldest.delete();
        }
    }

    synchronized Segment segmentFor(long offset) {
        Map.Entry<Long, Segment> entry = segments.floorEntry(offset);
        return entry == null ? null : entry.getValue();
    }

    synchronized Segment segmentAfter(Segment segment) {
        Map.Entry<Long, Segment> entry = segments.higherEntry(segment.baseOffset);
        return entry == null ? null : entry.getValue();
    }

    /**
     * Closes the files. If the active segment holds exactly the records appended (no torn write
     * past them), it is forced and a marker records its length and count, with its index saved, so
     * the next open need not scan it (see {@link #closedCleanly}); unless the marker it opened with
     * still says exactly that.
     */
    synchronized void close() throws IOException {
        try {
            boolean unchanged = active.baseOffset == markedBase && active.size == markedSize;
            if (!unchanged && active.channel.size() == active.size) {
                active.channel.force(true);
                if (PowerCut.ON) {
                    PowerCut.synced(active.file, active.size);
                }
                active.saveIndex();
                StateFiles.writeAtomically(
                        directory.resolve(CLEAN_MARKER),
                        (active.baseOffset + " " + active.size + " " + active.records)
                                .getBytes(StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            LOG.warn(
                    "log {}-{}: could not mark a clean close ({}); the next open scans the last"
                            + " segment",
                    topic,
                    partition,
                    e.toString());
        } finally {
            for (Segment segment : segments.values()) {
                segment.close();
            }
        }
    }
}
