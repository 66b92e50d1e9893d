package dev.weir.internal.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * One segment file of a partition and its sparse offset index (in memory, saved beside the segment
 * when it is sealed or the partition closes).
 *
 * <p>Index file format: magic {@code WIDX}, short version 1, int entries, long covered bytes (the
 * segment length the index describes), then per entry int relative offset and int position, and a
 * trailing CRC32C of everything before it. A file that fails the checksum or whose entries do not
 * fit the segment is not used: the caller rebuilds the index from the segment.
 *
 * <p>Mutated only under the partition's lock; {@link #size} is published through the partition's
 * volatile end so readers never read past what was written.
 */
final class Segment {
    private static final int INDEX_MAGIC = 0x57494458; // "WIDX"
    private static final short INDEX_VERSION = 1;
    private static final int INDEX_HEADER_BYTES = 4 + 2 + 4 + 8;

    final long baseOffset;
    final Path file;
    final Path indexFile;
    final FileChannel channel;

    /** Bytes of whole, valid records: where the next append goes; readers stop here. */
    volatile long size;

    long records;
    private int[] indexOffsets = new int[64];
    private int[] indexPositions = new int[64];
    private int indexEntries;
    private long lastIndexedPosition = -1;

    /** The segment length the loaded index file described (forced before it was saved). */
    private long indexCovered;

    private Segment(Path directory, long baseOffset, FileChannel channel) throws IOException {
        this.baseOffset = baseOffset;
        this.file = fileOf(directory, baseOffset);
        this.indexFile = indexFileOf(directory, baseOffset);
        this.channel = channel;
        this.size = channel.size();
    }

    static Path fileOf(Path directory, long baseOffset) {
        return directory.resolve(String.format("%020d.log", baseOffset));
    }

    static Path indexFileOf(Path directory, long baseOffset) {
        return directory.resolve(String.format("%020d.index", baseOffset));
    }

    /** Opens an existing segment, for reading and writing if {@code writable}. */
    static Segment open(Path directory, long baseOffset, boolean writable) throws IOException {
        Path file = fileOf(directory, baseOffset);
        FileChannel channel =
                writable
                        ? FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)
                        : FileChannel.open(file, StandardOpenOption.READ);
        return new Segment(directory, baseOffset, channel);
    }

    /**
     * Creates a new, empty segment; an index file left with the same base (by a segment deleted
     * earlier) is removed first, so it is never taken for this segment's.
     */
    static Segment create(Path directory, long baseOffset) throws IOException {
        Files.deleteIfExists(indexFileOf(directory, baseOffset));
        FileChannel channel =
                FileChannel.open(
                        fileOf(directory, baseOffset),
                        StandardOpenOption.CREATE_NEW,
                        StandardOpenOption.READ,
                        StandardOpenOption.WRITE);
        return new Segment(directory, baseOffset, channel);
    }

    /**
     * Notes that the record {@code offset} starts at {@code position}, every {@code interval}
     * bytes.
     */
    void maybeIndex(long offset, long position, int interval) {
        if (lastIndexedPosition >= 0 && position - lastIndexedPosition < interval) {
            return;
        }
        addIndexEntry((int) (offset - baseOffset), (int) position);
    }

    private void addIndexEntry(int relativeOffset, int position) {
        if (indexEntries == indexOffsets.length) {
            indexOffsets = Arrays.copyOf(indexOffsets, indexEntries * 2);
            indexPositions = Arrays.copyOf(indexPositions, indexEntries * 2);
        }
        indexOffsets[indexEntries] = relativeOffset;
        indexPositions[indexEntries] = position;
        indexEntries++;
        lastIndexedPosition = position;
    }

    /** How many index entries there are; with {@link #truncateIndex}, undoes a failed append. */
    int indexEntries() {
        return indexEntries;
    }

    /** Drops the index entries from {@code entries} on. */
    void truncateIndex(int entries) {
        indexEntries = entries;
        lastIndexedPosition = entries == 0 ? -1 : indexPositions[entries - 1];
    }

    /** Drops the index entries at or after byte {@code position}. */
    void truncateIndexAt(long position) {
        int keep = indexEntries;
        while (keep > 0 && indexPositions[keep - 1] >= position) {
            keep--;
        }
        truncateIndex(keep);
    }

    /**
     * The index entry at or before {@code offset}: {@code [offset, position]} of a record to scan
     * forward from, or the segment start.
     */
    long[] floor(long offset) {
        int relative = (int) (offset - baseOffset);
        int low = 0;
        int high = indexEntries - 1;
        int found = -1;
        while (low <= high) {
            int mid = (low + high) >>> 1;
            if (indexOffsets[mid] <= relative) {
                found = mid;
                low = mid + 1;
            } else {
                high = mid - 1;
            }
        }
        return found < 0
                ? new long[] {baseOffset, 0}
                : new long[] {baseOffset + indexOffsets[found], indexPositions[found]};
    }

    /** The last index entry before byte {@code position}: {@code [offset, position]}. */
    long[] floorPosition(long position) {
        for (int i = indexEntries - 1; i >= 0; i--) {
            if (indexPositions[i] < position) {
                return new long[] {baseOffset + indexOffsets[i], indexPositions[i]};
            }
        }
        return new long[] {baseOffset, 0};
    }

    /**
     * Writes the index file (covering the segment's current {@link #size}) and forces it; called
     * when the segment is sealed and when the partition closes.
     */
    void saveIndex() throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(INDEX_HEADER_BYTES + indexEntries * 8 + 4);
        buffer.putInt(INDEX_MAGIC).putShort(INDEX_VERSION).putInt(indexEntries).putLong(size);
        for (int i = 0; i < indexEntries; i++) {
            buffer.putInt(indexOffsets[i]).putInt(indexPositions[i]);
        }
        CRC32C crc = new CRC32C();
        crc.update(buffer.array(), 0, buffer.position());
        buffer.putInt((int) crc.getValue());
        buffer.flip();
        try (FileChannel out =
                FileChannel.open(
                        indexFile,
                        StandardOpenOption.CREATE,
                        StandardOpenOption.TRUNCATE_EXISTING,
                        StandardOpenOption.WRITE)) {
            while (buffer.hasRemaining()) {
                out.write(buffer);
            }
            out.force(true);
        }
    }

    /**
     * Loads the index file if it is present, whole (checksum), and fits this segment: entries
     * strictly increasing, inside the first {@code validBytes} bytes, and describing no more bytes
     * than there are. Returns null if loaded, else why not (the caller rebuilds the index and says
     * so); a missing file gives "missing".
     */
    String loadIndex(long validBytes) throws IOException {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(indexFile);
        } catch (NoSuchFileException e) {
            return "missing";
        }
        if (bytes.length < INDEX_HEADER_BYTES + 4) {
            return "it is " + bytes.length + " bytes, too short for an index";
        }
        ByteBuffer in = ByteBuffer.wrap(bytes);
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, bytes.length - 4);
        if (in.getInt() != INDEX_MAGIC
                || in.getShort() != INDEX_VERSION
                || (int) crc.getValue() != in.getInt(bytes.length - 4)) {
            return "its checksum does not match (damaged, or written by an older Weir)";
        }
        int entries = in.getInt();
        long covered = in.getLong();
        if (entries < 0 || bytes.length != INDEX_HEADER_BYTES + entries * 8L + 4) {
            return "its entry count " + entries + " does not fit its length";
        }
        if (covered > validBytes) {
            return "it describes " + covered + " bytes but the segment has " + validBytes;
        }
        int[] offsets = new int[Math.max(64, entries)];
        int[] positions = new int[Math.max(64, entries)];
        for (int i = 0; i < entries; i++) {
            offsets[i] = in.getInt();
            positions[i] = in.getInt();
            boolean increasing =
                    i == 0
                            ? offsets[0] >= 0 && positions[0] >= 0
                            : offsets[i] > offsets[i - 1] && positions[i] > positions[i - 1];
            if (!increasing || positions[i] >= covered) {
                return "entry " + i + " does not fit the segment";
            }
        }
        indexOffsets = offsets;
        indexPositions = positions;
        indexEntries = entries;
        indexCovered = covered;
        lastIndexedPosition = entries == 0 ? -1 : positions[entries - 1];
        return null;
    }

    /**
     * The length the loaded index file described, 0 if none was loaded: that much of the segment
     * was forced before the index was saved.
     */
    long indexCovered() {
        return indexCovered;
    }

    /** Forgets every index entry (before a rebuild). */
    void clearIndex() {
        truncateIndex(0);
    }

    void close() throws IOException {
        channel.close();
    }

    void delete() throws IOException {
        close();
        Files.deleteIfExists(indexFile);
        Files.deleteIfExists(file);
    }
}
