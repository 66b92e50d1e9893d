package dev.weir.internal.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * Walks the records of one segment forward from a record boundary whose offset is known, checking
 * each (length inside the limit, offset field, CRC32C) and adding index entries; stops at the first
 * record that is not valid and says why. Reads through a 1 MiB heap window: one read per window,
 * not two per record. Used on open and by readers that follow another process's writes.
 */
final class SegmentScan {
    private final Segment segment;
    private final int indexIntervalBytes;
    private final CRC32C crc = new CRC32C();
    private ByteBuffer buffer = ByteBuffer.allocate(1 << 20);
    private long bufferStart;

    /** The byte where the next record starts. */
    long position;

    /** The offset the next record must carry. */
    long offset;

    /** Why the record at {@link #position} is not valid, or null if the walk reached its limit. */
    String problem;

    /**
     * False to check only the framing (lengths and offsets), as the tail check of a sealed segment
     * on open does: it looks for missing or extra bytes; readers check every CRC.
     */
    boolean checksums = true;

    SegmentScan(Segment segment, long offset, long position, int indexIntervalBytes) {
        this.segment = segment;
        this.offset = offset;
        this.position = position;
        this.indexIntervalBytes = indexIntervalBytes;
        buffer.limit(0);
    }

    /**
     * Moves over valid records while they end at or before byte {@code limit} (at most the file's
     * length); stops there, or at an invalid record with {@link #problem} set. A record that runs
     * past {@code limit} is invalid.
     */
    void advance(long limit) throws IOException {
        problem = null;
        while (position < limit) {
            if (position + PartitionLog.HEADER_BYTES > limit) {
                problem =
                        "the segment ends inside a record header ("
                                + (limit - position)
                                + " trailing bytes)";
                return;
            }
            int at = window(position, PartitionLog.HEADER_BYTES, limit);
            int length = buffer.getInt(at);
            int storedCrc = buffer.getInt(at + 4);
            long storedOffset = buffer.getLong(at + 8);
            if (length < 0 || position + PartitionLog.HEADER_BYTES + length > limit) {
                problem = "the record length " + length + " runs past the end of the segment";
                return;
            }
            if (storedOffset != offset) {
                problem = "the record says offset " + storedOffset;
                return;
            }
            if (checksums) {
                at = window(position, PartitionLog.HEADER_BYTES + length, limit);
                crc.reset();
                crc.update(buffer.array(), at + 8, PartitionLog.HEADER_BYTES - 8 + length);
                if ((int) crc.getValue() != storedCrc) {
                    problem = "CRC32C mismatch";
                    return;
                }
            }
            segment.maybeIndex(offset, position, indexIntervalBytes);
            position += PartitionLog.HEADER_BYTES + length;
            offset++;
        }
    }

    /**
     * Looks for a valid record starting anywhere after the invalid one at {@link #position}, before
     * {@code limit}: a plausible header (length inside the limit, an offset above {@link #offset}
     * that the remaining bytes could reach) whose CRC32C matches. Returns {@code [offset,
     * position]} of the first found, or null. A torn write leaves none; byte damage inside the data
     * does. Tries every byte position, so it costs a pass over the rest of the segment; it runs
     * only when recovery met an invalid record.
     */
    long[] findValidRecordAfter(long limit) throws IOException {
        for (long at = position + 1; at + PartitionLog.HEADER_BYTES <= limit; at++) {
            int index = window(at, PartitionLog.HEADER_BYTES, limit);
            int length = buffer.getInt(index);
            long storedOffset = buffer.getLong(index + 8);
            long reachable = offset + (limit - position) / PartitionLog.HEADER_BYTES;
            if (length < 0
                    || at + PartitionLog.HEADER_BYTES + length > limit
                    || storedOffset <= offset
                    || storedOffset > reachable) {
                continue;
            }
            int storedCrc = buffer.getInt(index + 4);
            index = window(at, PartitionLog.HEADER_BYTES + length, limit);
            crc.reset();
            crc.update(buffer.array(), index + 8, PartitionLog.HEADER_BYTES - 8 + length);
            if ((int) crc.getValue() == storedCrc) {
                return new long[] {storedOffset, at};
            }
        }
        return null;
    }

    /**
     * Makes {@code bytes} bytes from {@code at} (all before {@code limit}) available; returns their
     * index in {@link #buffer}.
     */
    private int window(long at, int bytes, long limit) throws IOException {
        long relative = at - bufferStart;
        if (relative >= 0 && relative + bytes <= buffer.limit()) {
            return (int) relative;
        }
        if (buffer.capacity() < bytes) {
            buffer = ByteBuffer.allocate(bytes);
        }
        buffer.clear();
        buffer.limit((int) Math.min(buffer.capacity(), limit - at));
        while (buffer.hasRemaining()) {
            if (segment.channel.read(buffer, at + buffer.position()) < 0) {
                throw new IOException(
                        "unexpected end of "
                                + segment.file
                                + " at byte "
                                + (at + buffer.position()));
            }
        }
        buffer.flip();
        bufferStart = at;
        return 0;
    }
}
