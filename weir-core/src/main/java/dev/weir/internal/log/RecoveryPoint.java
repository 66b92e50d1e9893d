package dev.weir.internal.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;

/**
 * How much of a partition is known to be on disk: the records before {@code nextOffset}, which end
 * at byte {@code position} of segment {@code segmentBase}, were forced (as Kafka's {@code
 * recovery-point-offset-checkpoint}, per partition). Recovery may cut a torn tail only after it; a
 * bad record before it is corruption. Readers in other processes see records only before it, since
 * nothing ever cuts those.
 *
 * <p>File {@code recovery-point} in the partition directory, {@value #BYTES} bytes overwritten in
 * place: magic {@code WRCP}, short version 1, long segment base, long position, long next offset,
 * CRC32C of the rest. The writer rewrites it after every force of the segment (after the force
 * returned, so it never claims more than is on disk) and forces the file itself at most once a
 * second, at a roll and at close; a power cut may leave it stale by that much (then recovery checks
 * a little less, never more), and the checksum catches a torn one.
 *
 * @param segmentBase the base offset of the segment holding the point
 * @param position the byte in that segment where the durable records end
 * @param nextOffset the offset of the first record not known durable
 */
record RecoveryPoint(long segmentBase, long position, long nextOffset) {
    static final String FILE_NAME = "recovery-point";
    static final int BYTES = 4 + 2 + 8 + 8 + 8 + 4;
    private static final int MAGIC = 0x57524350; // "WRCP"
    private static final short VERSION = 1;

    /** Writes this point into {@code channel} at 0 (not forced). */
    void writeTo(FileChannel channel, ByteBuffer scratch) throws IOException {
        scratch.clear();
        scratch.putInt(MAGIC)
                .putShort(VERSION)
                .putLong(segmentBase)
                .putLong(position)
                .putLong(nextOffset);
        CRC32C crc = new CRC32C();
        crc.update(scratch.array(), 0, scratch.position());
        scratch.putInt((int) crc.getValue());
        scratch.flip();
        long at = 0;
        while (scratch.hasRemaining()) {
            at += channel.write(scratch, at);
        }
    }

    /** What reading the file found. */
    sealed interface Read {}

    /** The file does not exist (a new partition, or one written by an older Weir). */
    record Missing() implements Read {}

    /** The file exists but fails its checksum or framing. */
    record Damaged(String problem) implements Read {}

    /** A valid point. */
    record Found(RecoveryPoint point) implements Read {}

    /** Reads the point from {@code channel}. */
    static Read readFrom(FileChannel channel) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(BYTES);
        while (buffer.hasRemaining()) {
            if (channel.read(buffer, buffer.position()) < 0) {
                return new Damaged("it is " + buffer.position() + " bytes, not " + BYTES);
            }
        }
        CRC32C crc = new CRC32C();
        crc.update(buffer.array(), 0, BYTES - 4);
        buffer.flip();
        if (buffer.getInt() != MAGIC
                || buffer.getShort() != VERSION
                || buffer.getInt(BYTES - 4) != (int) crc.getValue()) {
            return new Damaged("its checksum does not match");
        }
        long base = buffer.getLong();
        long position = buffer.getLong();
        long next = buffer.getLong();
        if (base < 0 || position < 0 || next < base) {
            return new Damaged("its figures are impossible");
        }
        return new Found(new RecoveryPoint(base, position, next));
    }

    /** Reads the point of the partition in {@code directory}. */
    static Read read(Path directory) throws IOException {
        try (FileChannel channel =
                FileChannel.open(directory.resolve(FILE_NAME), StandardOpenOption.READ)) {
            return readFrom(channel);
        } catch (NoSuchFileException e) {
            return new Missing();
        }
    }
}
