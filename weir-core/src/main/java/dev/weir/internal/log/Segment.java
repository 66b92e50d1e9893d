package dev.weir.internal.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

/**
 * One segment file of a partition and its sparse offset index (in memory, saved beside the segment
 * when it is sealed).
 *
 * <p>Mutated only under the partition's lock; {@link #size} is published through the partition's
 * volatile end so readers never read past what was written.
 */
final class Segment {
    final long baseOffset;
    final Path file;
    final Path indexFile;
    final FileChannel channel;
    volatile long size;
    long records;
    private int[] indexOffsets = new int[64];
    private int[] indexPositions = new int[64];
    private int indexEntries;
    private long lastIndexedPosition = -1;

    Segment(Path directory, long baseOffset, boolean writable) throws IOException {
        this.baseOffset = baseOffset;
        this.file = directory.resolve(String.format("%020d.log", baseOffset));
        this.indexFile = directory.resolve(String.format("%020d.index", baseOffset));
        this.channel =
                writable
                        ? FileChannel.open(
                                file,
                                StandardOpenOption.CREATE,
                                StandardOpenOption.READ,
                                StandardOpenOption.WRITE)
                        : FileChannel.open(file, StandardOpenOption.READ);
        this.size = channel.size();
    }

    /**
     * Notes that the record {@code offset} starts at {@code position}, every {@code interval}
     * bytes.
     */
    void maybeIndex(long offset, long position, int interval) {
        if (lastIndexedPosition >= 0 && position - lastIndexedPosition < interval) {
            return;
        }
        if (indexEntries == indexOffsets.length) {
            indexOffsets = Arrays.copyOf(indexOffsets, indexEntries * 2);
            indexPositions = Arrays.copyOf(indexPositions, indexEntries * 2);
        }
        indexOffsets[indexEntries] = (int) (offset - baseOffset);
        indexPositions[indexEntries] = (int) position;
        indexEntries++;
        lastIndexedPosition = position;
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

    /** Writes the index file and forces it; called when the segment is sealed. */
    void saveIndex() throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(indexEntries * 8);
        for (int i = 0; i < indexEntries; i++) {
            buffer.putInt(indexOffsets[i]).putInt(indexPositions[i]);
        }
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

    /** Loads the index file if present; returns false if it must be rebuilt. */
    boolean loadIndex() throws IOException {
        if (!Files.exists(indexFile)) {
            return false;
        }
        ByteBuffer buffer = ByteBuffer.wrap(Files.readAllBytes(indexFile));
        while (buffer.remaining() >= 8) {
            int relative = buffer.getInt();
            int position = buffer.getInt();
            if (indexEntries == indexOffsets.length) {
                indexOffsets = Arrays.copyOf(indexOffsets, indexEntries * 2);
                indexPositions = Arrays.copyOf(indexPositions, indexEntries * 2);
            }
            indexOffsets[indexEntries] = relative;
            indexPositions[indexEntries] = position;
            indexEntries++;
            lastIndexedPosition = position;
        }
        return true;
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
