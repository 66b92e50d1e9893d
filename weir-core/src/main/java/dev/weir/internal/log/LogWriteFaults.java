package dev.weir.internal.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

/**
 * A test hook in the durable log's write path: makes segment writes or forces of one partition fail
 * as a full disk or a failing device would, so tests cover those paths on any machine. Off unless a
 * test arms it; disarmed, the write path pays one volatile read per write.
 */
public final class LogWriteFaults {
    /**
     * What is armed: writes of segments in {@code directory} write at most {@code bytes} more bytes
     * and then throw (if {@code writes}), or forces throw (if not); {@code times} more failures.
     */
    private record Armed(Path directory, boolean writes, long bytes, int times) {}

    private static volatile Armed armed;

    private LogWriteFaults() {}

    /**
     * The next {@code times} appends to the partition in {@code directory} write {@code bytes}
     * bytes of their batch (a torn write) and then fail with "No space left on device".
     */
    public static void failWrites(Path directory, long bytes, int times) {
        armed = new Armed(directory.toAbsolutePath().normalize(), true, bytes, times);
    }

    /** The next {@code times} forces of the partition in {@code directory} fail. */
    public static void failForces(Path directory, int times) {
        armed = new Armed(directory.toAbsolutePath().normalize(), false, 0, times);
    }

    /** Turns the hook off. */
    public static void disarm() {
        armed = null;
    }

    /**
     * {@code channel.write(buffer, position)}, unless a write failure is armed for {@code file}.
     */
    static int write(FileChannel channel, ByteBuffer buffer, long position, Path file)
            throws IOException {
        Armed now = armed;
        if (now == null || !now.writes() || !matches(now, file)) {
            return channel.write(buffer, position);
        }
        int limit = buffer.limit();
        buffer.limit((int) Math.min(limit, buffer.position() + now.bytes()));
        try {
            while (buffer.hasRemaining()) {
                position += channel.write(buffer, position);
            }
        } finally {
            buffer.limit(limit);
        }
        consume(now);
        throw new IOException("No space left on device (injected by LogWriteFaults)");
    }

    /** {@code channel.force(false)}, unless a force failure is armed for {@code file}. */
    static void force(FileChannel channel, Path file) throws IOException {
        Armed now = armed;
        if (now != null && !now.writes() && matches(now, file)) {
            consume(now);
            throw new IOException("Input/output error (injected by LogWriteFaults)");
        }
        channel.force(false);
    }

    private static boolean matches(Armed now, Path file) {
        return file.toAbsolutePath().normalize().getParent().equals(now.directory());
    }

    private static synchronized void consume(Armed now) {
        if (armed == now) {
            armed =
                    now.times() > 1
                            ? new Armed(now.directory(), now.writes(), now.bytes(), now.times() - 1)
                            : null;
        }
    }
}
