package dev.weir.internal.log;

import dev.weir.api.log.LogCorruptedException;
import dev.weir.api.log.LogOptions;
import dev.weir.internal.io.DurableFiles;
import dev.weir.internal.testhooks.PowerCut;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
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
 * {@code EVERY_BATCH}). After every force the {@link RecoveryPoint} records how far the partition
 * is on disk.
 *
 * <p>Open recovers the last segment by these rules (docs/design/004-durable-log.md):
 *
 * <ol>
 *   <li>Every record before the recovery point was forced: if one is invalid, or the segment is
 *       shorter than the point, that is corruption ({@link LogCorruptedException} naming topic,
 *       partition, offset and file), never a torn tail.
 *   <li>After the point, the first invalid record starts a torn tail, which is cut with a WARN;
 *       unless a valid record follows it somewhere, which a torn write cannot leave: corruption.
 * </ol>
 *
 * The walk starts at the last offset-index entry before the point, so after a clean close (index
 * saved, point at the end) opening reads at most one index interval; every read checks each
 * record's CRC32C, so damage the walk skipped is still found, never returned.
 */
public final class PartitionLog {
    static final int HEADER_BYTES = 25;

    /** The largest batch one append takes: segment positions are ints. */
    static final int MAX_BATCH_BYTES = Integer.MAX_VALUE - 8;

    /** The longest a rewritten recovery point waits before it is forced itself. */
    private static final long RECOVERY_POINT_FORCE_INTERVAL_NANOS = 1_000_000_000L;

    private static final Logger LOG = LoggerFactory.getLogger(PartitionLog.class);

    final String topic;
    final int partition;
    private final Path directory;
    private final LogOptions options;

    /**
     * False for a read-only view: it never writes, repairs or deletes anything, and shows only the
     * records before the writer's recovery point, following it as it moves ({@link #refresh}).
     */
    final boolean writable;

    /** A read-only view: the recovery point it last followed, or null. */
    private RecoveryPoint followed;

    private final TreeMap<Long, Segment> segments = new TreeMap<>();
    private Segment active;
    private long nextOffset;
    private volatile long endOffset;
    private long lastForceNanos = System.nanoTime();
    private ByteBuffer scratch = ByteBuffer.allocate(64 * 1024);

    /** Why appends are refused (a failed append could not be undone), or null. */
    private String unusable;

    /** The recovery point file, open for the partition's life (a view opens it read-only). */
    private FileChannel recoveryFile;

    private final ByteBuffer recoveryBuffer = ByteBuffer.allocate(RecoveryPoint.BYTES);

    /** The point last written to {@link #recoveryFile}. */
    private RecoveryPoint recoveryPoint;

    /** True if {@link #recoveryPoint} was written but the file not forced since. */
    private boolean recoveryPointUnforced;

    private long recoveryPointForcedNanos = System.nanoTime();

    /**
     * True once anything was appended, cut or rebuilt since open; a close with nothing changed (a
     * reader's open and close) writes nothing.
     */
    private boolean changed;

    private PartitionLog(
            String topic, int partition, Path directory, LogOptions options, boolean writable) {
        this.topic = topic;
        this.partition = partition;
        this.directory = directory;
        this.options = options;
        this.writable = writable;
    }

    /**
     * Opens (or creates) the partition in {@code directory} for writing, recovering its tail. The
     * caller holds the log directory's lock: recovery cuts and rewrites files.
     */
    static PartitionLog open(String topic, int partition, Path directory, LogOptions options)
            throws IOException {
        Files.createDirectories(directory);
        PartitionLog log = new PartitionLog(topic, partition, directory, options, true);
        try {
            log.recover();
        } catch (IOException | RuntimeException e) {
            log.closeFiles();
            throw e;
        }
        return log;
    }

    /**
     * Opens a read-only view of the partition in {@code directory}, which another process (or
     * nobody) may be writing: the records before its recovery point (or, for a partition an older
     * Weir wrote, without one, its valid prefix). Writes nothing; a missing directory is an empty
     * partition.
     */
    static PartitionLog openView(String topic, int partition, Path directory, LogOptions options)
            throws IOException {
        PartitionLog log = new PartitionLog(topic, partition, directory, options, false);
        try {
            log.openForReading();
        } catch (IOException | RuntimeException e) {
            log.closeFiles();
            throw e;
        }
        return log;
    }

    private void openForReading() throws IOException {
        RecoveryPoint point = readPointForView();
        PartitionFiles files = PartitionFiles.list(directory);
        warnAboutStrangers(files);
        List<Long> bases = files.segmentBases();
        if (bases.isEmpty()) {
            return; // nothing written yet
        }
        long lastBase = bases.get(bases.size() - 1);
        for (int i = 0; i < bases.size() - 1; i++) {
            Segment segment = Segment.open(directory, bases.get(i), false);
            segments.put(segment.baseOffset, segment);
            loadSealed(segment, bases.get(i + 1));
        }
        active = Segment.open(directory, lastBase, false);
        segments.put(lastBase, active);
        if (point == null) {
            showValidPrefix(active);
        } else if (point.segmentBase() > lastBase) {
            throw new LogCorruptedException(
                    topic,
                    partition,
                    point.segmentBase(),
                    Segment.fileOf(directory, point.segmentBase()).toString(),
                    "the segment is missing, but the recovery point names it");
        } else {
            active.size = 0;
            followed = point;
            if (point.segmentBase() == lastBase) {
                startAtIndex(active, point.position());
                showUpTo(active, point);
            }
        }
        nextOffset = active.baseOffset + active.records;
        endOffset = nextOffset;
    }

    /**
     * A view of the last segment starts at the last entry of its saved index before byte {@code
     * visible} (after a clean close, within one index interval of the end), so opening it does not
     * walk the whole segment; an index that does not check out is ignored (the walk starts at 0).
     */
    private void startAtIndex(Segment segment, long visible) throws IOException {
        if (segment.loadIndex(visible) != null) {
            segment.clearIndex();
        }
        long[] from = segment.floorPosition(visible + 1);
        segment.truncateIndexAt(from[1] + 1);
        segment.records = from[0] - segment.baseOffset;
        segment.size = from[1];
    }

    /**
     * The recovery point for a view; null if missing or damaged. The writer rewrites it in place,
     * so a read racing a rewrite can see a mix: it is read again before it counts as damaged.
     */
    private RecoveryPoint readPointForView() throws IOException {
        if (recoveryFile == null) {
            try {
                recoveryFile =
                        FileChannel.open(
                                directory.resolve(RecoveryPoint.FILE_NAME),
                                StandardOpenOption.READ);
            } catch (NoSuchFileException e) {
                return null; // no writer yet, or one of an older Weir
            }
        }
        for (int attempt = 0; attempt < 3; attempt++) {
            if (RecoveryPoint.readFrom(recoveryFile) instanceof RecoveryPoint.Found found) {
                return found.point();
            }
        }
        return null;
    }

    /** A view without a recovery point: the records up to the first invalid one. */
    private void showValidPrefix(Segment segment) throws IOException {
        long fileBytes = segment.size;
        segment.size = 0;
        SegmentScan scan =
                new SegmentScan(segment, segment.baseOffset, 0, options.indexIntervalBytes());
        scan.advance(fileBytes);
        segment.records = scan.offset - segment.baseOffset;
        segment.size = scan.position;
    }

    /**
     * Extends the view of {@code segment} (the last one) to the recovery point {@code point}: its
     * framing is walked from the view's end (readers check the CRCs); the writer forced those
     * bytes, so a broken chain is corruption.
     */
    private void showUpTo(Segment segment, RecoveryPoint point) throws IOException {
        if (point.position() <= segment.size) {
            return;
        }
        SegmentScan scan =
                new SegmentScan(
                        segment,
                        segment.baseOffset + segment.records,
                        segment.size,
                        options.indexIntervalBytes());
        scan.checksums = false;
        scan.advance(point.position());
        if (scan.problem != null || scan.offset != point.nextOffset()) {
            throw corrupt(
                    segment,
                    scan.offset,
                    (scan.problem != null ? scan.problem : "the records end at the wrong offset")
                            + " before the recovery point (byte "
                            + point.position()
                            + ", offset "
                            + point.nextOffset()
                            + ")");
        }
        segment.records = scan.offset - segment.baseOffset;
        segment.size = scan.position;
    }

    /**
     * False once one of the partition's open files was closed under its users: a thread interrupted
     * inside a read or write of a {@link FileChannel} closes that channel for every thread (Flink,
     * for one, interrupts a task's thread when it cancels the task).
     */
    public synchronized boolean filesOpen() {
        if (recoveryFile != null && !recoveryFile.isOpen()) {
            return false;
        }
        for (Segment segment : segments.values()) {
            if (!segment.channel.isOpen()) {
                return false;
            }
        }
        return true;
    }

    /**
     * For a read-only view: follows the writer's recovery point if it moved (new records, new
     * segments); returns the end offset. A writable partition is its own truth: returns at once.
     */
    public synchronized long refresh() throws IOException {
        if (writable) {
            return endOffset;
        }
        RecoveryPoint point = readPointForView();
        if (point == null || point.equals(followed)) {
            return endOffset;
        }
        if (active == null || point.segmentBase() > active.baseOffset) {
            followNewSegments(point);
        } else if (point.segmentBase() == active.baseOffset) {
            showUpTo(active, point);
        }
        followed = point;
        nextOffset = active == null ? 0 : active.baseOffset + active.records;
        endOffset = nextOffset;
        return endOffset;
    }

    /**
     * The writer rolled: the view's last segment is sealed (forced whole before the roll), and the
     * segments up to the point's are opened.
     */
    private void followNewSegments(RecoveryPoint point) throws IOException {
        List<Long> bases = new ArrayList<>();
        for (long base : PartitionFiles.list(directory).segmentBases()) {
            if ((active == null || base > active.baseOffset) && base <= point.segmentBase()) {
                bases.add(base);
            }
        }
        if (bases.isEmpty() || bases.get(bases.size() - 1) != point.segmentBase()) {
            throw corrupt(
                    Segment.fileOf(directory, point.segmentBase()),
                    point.segmentBase(),
                    "the segment the writer's recovery point names is missing (deleted by"
                            + " retention before this reader reached it?)");
        }
        if (active != null) {
            long known = active.size;
            active.size = active.channel.size();
            long end = walkToEnd(active, active.baseOffset + active.records, known);
            checkSealedEnd(active, end, bases.get(0));
            active.records = bases.get(0) - active.baseOffset;
        }
        for (int i = 0; i < bases.size(); i++) {
            Segment segment = Segment.open(directory, bases.get(i), false);
            segments.put(segment.baseOffset, segment);
            if (i < bases.size() - 1) {
                loadSealed(segment, bases.get(i + 1));
            } else {
                segment.size = 0;
                active = segment;
                showUpTo(segment, point);
            }
        }
    }

    private void recover() throws IOException {
        PartitionFiles files = PartitionFiles.list(directory);
        warnAboutStrangers(files);
        for (Path legacy : files.legacy()) {
            Files.deleteIfExists(legacy);
        }
        for (long base : files.indexBases()) {
            if (!files.segmentBases().contains(base)) {
                Files.deleteIfExists(Segment.indexFileOf(directory, base)); // its segment is gone
            }
        }
        RecoveryPoint point = readRecoveryPoint();
        List<Long> bases = new ArrayList<>(files.segmentBases());
        if (bases.isEmpty()) {
            if (point != null && point.nextOffset() > 0) {
                throw new LogCorruptedException(
                        topic,
                        partition,
                        0,
                        directory.toString(),
                        "the directory holds no segment file, but its recovery point says records"
                                + " up to offset "
                                + (point.nextOffset() - 1)
                                + " were forced to disk");
            }
            Segment.create(directory, 0).close();
            DurableFiles.fsyncDirectory(directory);
            bases.add(0L);
        }
        long lastBase = bases.get(bases.size() - 1);
        if (point != null && point.segmentBase() > lastBase) {
            throw new LogCorruptedException(
                    topic,
                    partition,
                    point.segmentBase(),
                    Segment.fileOf(directory, point.segmentBase()).toString(),
                    "the segment is missing, but the recovery point says "
                            + point.position()
                            + " bytes of it (records up to offset "
                            + (point.nextOffset() - 1)
                            + ") were forced to disk");
        }
        for (int i = 0; i < bases.size() - 1; i++) {
            Segment segment = Segment.open(directory, bases.get(i), false);
            segments.put(segment.baseOffset, segment);
            loadSealed(segment, bases.get(i + 1));
        }
        active = Segment.open(directory, lastBase, true);
        segments.put(lastBase, active);
        recoverLast(point != null && point.segmentBase() == lastBase ? point : null);
        nextOffset = active.baseOffset + active.records;
        endOffset = nextOffset;
        recoveryFile =
                FileChannel.open(
                        directory.resolve(RecoveryPoint.FILE_NAME),
                        StandardOpenOption.CREATE,
                        StandardOpenOption.READ,
                        StandardOpenOption.WRITE);
        recoveryPoint = point;
        if (!new RecoveryPoint(lastBase, active.size, nextOffset).equals(point)) {
            // records kept after the old point become durable now, and the point moves past them
            LogWriteFaults.force(active.channel, active.file);
            if (PowerCut.ON) {
                PowerCut.synced(active.file, active.size);
            }
            noteRecoveryPoint(active.size, nextOffset, true);
        }
    }

    /** The recovery point on disk, or null if there is none or it is damaged (with a WARN). */
    private RecoveryPoint readRecoveryPoint() throws IOException {
        RecoveryPoint.Read read = RecoveryPoint.read(directory);
        if (read instanceof RecoveryPoint.Found found) {
            return found.point();
        }
        if (read instanceof RecoveryPoint.Damaged damaged) {
            LOG.warn(
                    "log {}-{}: the recovery point {} is not usable ({}); recovering without it:"
                            + " an invalid record in the last segment is then a torn tail only if"
                            + " no valid record follows it",
                    topic,
                    partition,
                    directory.resolve(RecoveryPoint.FILE_NAME),
                    damaged.problem());
        }
        return null;
    }

    /**
     * Recovers the active (last) segment by the rules in the class comment; {@code point} is the
     * recovery point if it lies in this segment, else null (everything in it is after the point).
     */
    private void recoverLast(RecoveryPoint point) throws IOException {
        Segment segment = active;
        String indexProblem = segment.loadIndex(segment.size);
        if (indexProblem != null) {
            if (!indexProblem.equals("missing")) {
                warnRebuildingIndex(segment, indexProblem);
                changed = true;
            }
            segment.clearIndex();
        }
        long durable = point == null ? 0 : point.position();
        if (indexProblem == null) {
            durable = Math.max(durable, segment.indexCovered()); // saved after a force
        }
        long[] from = segment.floorPosition(durable + 1);
        segment.truncateIndexAt(from[1] + 1);
        SegmentScan scan = new SegmentScan(segment, from[0], from[1], options.indexIntervalBytes());
        if (segment.size < durable) {
            scan.checksums = false;
            scan.advance(segment.size);
            throw corrupt(
                    segment,
                    scan.offset,
                    "the segment is "
                            + segment.size
                            + " bytes but "
                            + durable
                            + " bytes of it were forced to disk (its recovery point): the records"
                            + " from offset "
                            + scan.offset
                            + " on are missing");
        }
        scan.advance(durable);
        if (scan.problem != null) {
            throw corrupt(
                    segment,
                    scan.offset,
                    scan.problem
                            + ", before the recovery point (byte "
                            + durable
                            + "): this record was forced to disk, so it is damage, not a torn"
                            + " write");
        }
        if (point != null && durable == point.position() && scan.offset != point.nextOffset()) {
            throw corrupt(
                    segment,
                    scan.offset,
                    "the recovery point says offset "
                            + point.nextOffset()
                            + " starts at byte "
                            + durable
                            + ", but the records before it end with offset "
                            + (scan.offset - 1));
        }
        scan.advance(segment.size);
        if (scan.problem != null) {
            cutTornTail(segment, scan);
        }
        segment.records = scan.offset - segment.baseOffset;
        if (segment.size > 0 && (indexProblem != null || segment.indexCovered() < segment.size)) {
            changed = true; // the index on disk misses a part: save it at close
        }
    }

    /**
     * The record at {@code scan}'s position, after the recovery point, is invalid: cut the segment
     * there (a torn write), unless a valid record follows, which no torn write leaves.
     */
    private void cutTornTail(Segment segment, SegmentScan scan) throws IOException {
        long[] later = scan.findValidRecordAfter(segment.size);
        if (later != null) {
            throw corrupt(
                    segment,
                    scan.offset,
                    scan.problem
                            + " at byte "
                            + scan.position
                            + ", but a valid record follows (offset "
                            + later[0]
                            + " at byte "
                            + later[1]
                            + "), so this is damage, not a torn write. If the records from offset "
                            + scan.offset
                            + " on were never acknowledged as durable (a power cut under fsync"
                            + " policy NEVER or INTERVAL), cut them: truncate "
                            + segment.file
                            + " to "
                            + scan.position
                            + " bytes");
        }
        LOG.warn(
                "log {}-{}: cut {} bytes of a torn write at the end of {} (from offset {}: {};"
                        + " they were written after the last force, so never acknowledged as"
                        + " durable)",
                topic,
                partition,
                segment.size - scan.position,
                segment.file,
                scan.offset,
                scan.problem);
        segment.channel.truncate(scan.position);
        segment.channel.force(true);
        segment.size = scan.position;
        segment.truncateIndexAt(scan.position);
        changed = true;
        if (PowerCut.ON) {
            PowerCut.synced(segment.file, scan.position);
        }
    }

    private LogCorruptedException corrupt(Segment segment, long offset, String problem) {
        return corrupt(segment.file, offset, problem);
    }

    private LogCorruptedException corrupt(Path file, long offset, String problem) {
        return new LogCorruptedException(topic, partition, offset, file.toString(), problem);
    }

    private void warnRebuildingIndex(Segment segment, String problem) {
        LOG.warn(
                "log {}-{}: the offset index {} is not usable ({}); rebuilding it from {}",
                topic,
                partition,
                segment.indexFile,
                problem,
                segment.file.getFileName());
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
                warnRebuildingIndex(segment, problem);
            }
            segment.clearIndex();
        }
        long[] from = segment.floorPosition(segment.size);
        segment.truncateIndexAt(from[1] + 1);
        long end = walkToEnd(segment, from[0], from[1]);
        checkSealedEnd(segment, end, nextBase);
        segment.records = nextBase - segment.baseOffset;
        if (problem != null && writable) {
            segment.saveIndex();
        }
    }

    /** A sealed segment whose records end at {@code end} must end where the next one begins. */
    private void checkSealedEnd(Segment segment, long end, long nextBase) {
        if (end != nextBase) {
            throw corrupt(
                    segment,
                    Math.min(end, nextBase),
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
        return segments.isEmpty() ? 0 : segments.firstKey();
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
            force(position, offset);
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
        changed = true;
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
        if (!writable) {
            throw new IllegalStateException(
                    "log "
                            + topic
                            + "-"
                            + partition
                            + " in "
                            + directory
                            + " is open read-only (another process holds the log directory, or"
                            + " it was opened with DurableLog.openReadOnly); write through"
                            + " DurableLog.open in the process that holds it");
        }
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

    /**
     * Forces the active segment, {@code size} bytes long with records up to {@code next}, if the
     * fsync policy says so now.
     */
    private void force(long size, long next) throws IOException {
        switch (options.fsync()) {
            case EVERY_BATCH -> forceActive(size, next);
            case INTERVAL -> {
                long now = System.nanoTime();
                if (now - lastForceNanos >= options.fsyncInterval().toNanos()) {
                    forceActive(size, next);
                    lastForceNanos = now;
                }
            }
            case NEVER -> {}
        }
    }

    /**
     * Forces the active segment's first {@code size} bytes (records before {@code next}) to disk,
     * then moves the recovery point there.
     */
    private void forceActive(long size, long next) throws IOException {
        LogWriteFaults.force(active.channel, active.file);
        if (PowerCut.ON) {
            PowerCut.synced(active.file, size);
        }
        noteRecoveryPoint(size, next, false);
    }

    /**
     * Rewrites the recovery point as {@code size} bytes of the active segment, records before
     * {@code next} (already forced); forces the file too if {@code forceNow} or if it waited a
     * second. A failure only costs recovery precision, never data: it is logged, not thrown, since
     * the append it follows is durable.
     */
    private void noteRecoveryPoint(long size, long next, boolean forceNow) {
        RecoveryPoint point = new RecoveryPoint(active.baseOffset, size, next);
        try {
            if (!point.equals(recoveryPoint)) {
                recoveryPoint = null; // unknown on disk until the write returns
                point.writeTo(recoveryFile, recoveryBuffer);
                recoveryPoint = point;
                recoveryPointUnforced = true;
            }
            long now = System.nanoTime();
            if (recoveryPointUnforced
                    && (forceNow
                            || now - recoveryPointForcedNanos
                                    >= RECOVERY_POINT_FORCE_INTERVAL_NANOS)) {
                recoveryFile.force(false);
                recoveryPointUnforced = false;
                recoveryPointForcedNanos = now;
            }
        } catch (IOException e) {
            LOG.warn(
                    "log {}-{}: could not update the recovery point {} ({}); the data is on disk,"
                            + " but a recovery before the next update checks less of it",
                    topic,
                    partition,
                    directory.resolve(RecoveryPoint.FILE_NAME),
                    e.toString());
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
        return appendTransaction(payloads, transaction, new byte[0]);
    }

    /**
     * Like {@link #appendTransaction(List, long)}, with {@code commitPayload} in the COMMIT marker
     * (LogSink names the transaction there: job, sink, subtask, checkpoint).
     */
    public synchronized long appendTransaction(
            List<byte[]> payloads, long transaction, byte[] commitPayload) throws IOException {
        long begin = nextOffset;
        List<byte[]> batch = new ArrayList<>(payloads.size() + 2);
        batch.add(new byte[0]);
        batch.addAll(payloads);
        batch.add(commitPayload);
        appendFramed(batch, transaction, true);
        return begin;
    }

    /** Forces everything appended so far to disk. */
    public synchronized void flush() throws IOException {
        checkAppendable();
        forceActive(active.size, nextOffset);
    }

    /**
     * Seals the active segment (forced, index saved) and starts the next; if creating the new file
     * fails, the partition is as before and the append that asked fails.
     */
    private void roll() throws IOException {
        forceActive(active.size, nextOffset);
        active.saveIndex();
        Segment next = Segment.create(directory, nextOffset);
        try {
            DurableFiles.fsyncDirectory(directory);
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
        noteRecoveryPoint(0, nextOffset, true);
        applyRetention();
    }

    /** Deletes the oldest sealed segments beyond the size or age limits. */
    public synchronized void applyRetention() throws IOException {
        checkAppendable();
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

    /** {@code segment}'s index entry at or before {@code offset} (see {@link Segment#floor}). */
    synchronized long[] floor(Segment segment, long offset) {
        return segment.floor(offset);
    }

    synchronized Segment segmentAfter(Segment segment) {
        Map.Entry<Long, Segment> entry = segments.higherEntry(segment.baseOffset);
        return entry == null ? null : entry.getValue();
    }

    /**
     * Closes the files. If anything changed since open and the active segment holds exactly the
     * records appended (no torn write past them), it is forced, its index saved and the recovery
     * point moved to its end and forced, so the next open walks at most one index interval.
     */
    synchronized void close() throws IOException {
        try {
            if (writable && changed && unusable == null && active.channel.size() == active.size) {
                forceActive(active.size, nextOffset);
                active.saveIndex();
                noteRecoveryPoint(active.size, nextOffset, true);
            } else if (recoveryPointUnforced) {
                recoveryFile.force(false);
            }
        } catch (IOException e) {
            LOG.warn(
                    "log {}-{}: could not save the index and recovery point at close ({}); the"
                            + " next open walks more of the last segment",
                    topic,
                    partition,
                    e.toString());
        } finally {
            closeFiles();
        }
    }

    private void closeFiles() throws IOException {
        IOException failure = null;
        for (Segment segment : segments.values()) {
            try {
                segment.close();
            } catch (IOException e) {
                failure = e;
            }
        }
        if (recoveryFile != null) {
            recoveryFile.close();
        }
        if (failure != null) {
            throw failure;
        }
    }
}
