package dev.weir.internal.log;

import dev.weir.api.log.LogCorruptedException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * Reads one partition forward from an offset, in chunks through a heap buffer, checking every
 * record's CRC32C. Never reads past the partition's published end. Single-threaded.
 */
public final class PartitionReader {
    private static final int CHUNK_BYTES = 1 << 20;

    private final PartitionLog log;
    private final CRC32C crc = new CRC32C();
    private ByteBuffer buffer = ByteBuffer.allocate(CHUNK_BYTES);
    private long bufferStart;
    private Segment segment;
    private long position;
    private long nextOffset;

    PartitionReader(PartitionLog log, long offset) throws IOException {
        this.log = log;
        seek(offset);
    }

    /** The offset of the next record to read. */
    public long position() {
        return nextOffset;
    }

    /** Moves so that the next record read is {@code offset}. */
    public void seek(long offset) throws IOException {
        long start = log.startOffset();
        long end = log.endOffset();
        if (offset > end) {
            end = log.refresh();
        }
        if (offset < start || offset > end) {
            throw new IllegalArgumentException(
                    "offset "
                            + offset
                            + " is outside log "
                            + log.topic
                            + "-"
                            + log.partition
                            + " ["
                            + start
                            + ", "
                            + end
                            + "]"
                            + (offset < start ? "; it was deleted by retention" : ""));
        }
        segment = log.segmentFor(offset);
        long[] floor = segment == null ? new long[] {offset, 0} : log.floor(segment, offset);
        nextOffset = floor[0];
        position = floor[1];
        buffer.limit(0);
        bufferStart = position;
        while (nextOffset < offset) {
            if (read(
                            (o, a, t, b, p, l) -> {},
                            (int) Math.min(Integer.MAX_VALUE, offset - nextOffset))
                    == 0) {
                throw new IllegalStateException("cannot reach offset " + offset);
            }
        }
    }

    /**
     * True if a record is available now; a read-only view first follows its writer when the reader
     * has caught up.
     */
    public boolean hasNext() throws IOException {
        return nextOffset < log.endOffset() || nextOffset < log.refresh();
    }

    /** Hands up to {@code max} records to {@code visitor}; returns how many. */
    public int read(RecordVisitor visitor, int max) throws IOException {
        long end = log.endOffset();
        if (nextOffset >= end) {
            end = caughtUp();
        }
        int count = 0;
        while (count < max && nextOffset < end) {
            if (position >= segment.size) {
                if (!nextSegment()) {
                    break;
                }
                continue;
            }
            int at = ensure(PartitionLog.HEADER_BYTES);
            int length = buffer.getInt(at);
            int storedCrc = buffer.getInt(at + 4);
            long storedOffset = buffer.getLong(at + 8);
            if (storedOffset != nextOffset || length < 0 || length > segment.size - position) {
                throw corrupt(
                        "the record header is damaged (offset field "
                                + storedOffset
                                + ", length "
                                + length
                                + ")");
            }
            at = ensure(PartitionLog.HEADER_BYTES + length);
            crc.reset();
            crc.update(buffer.array(), at + 8, PartitionLog.HEADER_BYTES - 8 + length);
            if ((int) crc.getValue() != storedCrc) {
                throw corrupt("CRC32C mismatch");
            }
            byte attributes = buffer.get(at + 16);
            long transaction = buffer.getLong(at + 17);
            try {
                visitor.accept(
                        nextOffset,
                        attributes,
                        transaction,
                        buffer.array(),
                        at + PartitionLog.HEADER_BYTES,
                        length);
            } catch (IOException | RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IOException(e);
            }
            position += PartitionLog.HEADER_BYTES + length;
            nextOffset++;
            count++;
        }
        return count;
    }

    /**
     * At the published end: a read-only view follows its writer; returns the end offset now. (Off
     * the per-record path, like {@link #nextSegment}, so the loop in {@link #read} stays small.)
     */
    private long caughtUp() throws IOException {
        long end = log.refresh();
        if (segment == null && nextOffset < end) {
            segment = log.segmentFor(nextOffset); // a view that had no segment when we sought
        }
        return end;
    }

    /**
     * Moves to the segment after the current one, which must start where it ended; false if there
     * is none yet.
     */
    private boolean nextSegment() {
        Segment next = log.segmentAfter(segment);
        if (next == null) {
            return false;
        }
        if (next.baseOffset != nextOffset) {
            throw corrupt(
                    "the segment ends at offset "
                            + nextOffset
                            + " but the next one starts at "
                            + next.baseOffset);
        }
        segment = next;
        position = 0;
        buffer.limit(0);
        bufferStart = 0;
        return true;
    }

    private LogCorruptedException corrupt(String problem) {
        return new LogCorruptedException(
                log.topic, log.partition, nextOffset, segment.file.toString(), problem);
    }

    /**
     * Makes {@code bytes} bytes from {@link #position} available; returns their index in the
     * buffer.
     */
    private int ensure(int bytes) throws IOException {
        long relative = position - bufferStart;
        if (relative >= 0 && relative + bytes <= buffer.limit()) {
            return (int) relative;
        }
        if (buffer.capacity() < bytes) {
            buffer = ByteBuffer.allocate(Math.max(bytes, CHUNK_BYTES));
        }
        buffer.clear();
        long available = segment.size - position;
        buffer.limit((int) Math.min(buffer.capacity(), available));
        while (buffer.hasRemaining()) {
            int read = segment.channel.read(buffer, position + buffer.position());
            if (read < 0) {
                break;
            }
        }
        buffer.flip();
        bufferStart = position;
        if (buffer.limit() < bytes) {
            throw corrupt("the segment ends inside a record");
        }
        return 0;
    }
}
