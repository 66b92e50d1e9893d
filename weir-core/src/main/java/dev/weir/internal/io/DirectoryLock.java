package dev.weir.internal.io;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * An exclusive OS lock on a directory, so two writers (two processes, or two jobs in one process)
 * never share a durable log or a checkpoint directory: a second writer would number its records or
 * checkpoints from the same point and overwrite the first one's acknowledged data.
 *
 * <p>The lock is a {@link FileChannel#tryLock} on {@code <directory>/.lock}, which the OS releases
 * when the process dies (SIGKILL included), so a crash never leaves a stale lock. The file holds
 * the holder's PID, which a refused opener names. Within one JVM a second lock on the same
 * directory is refused too (the JDK tracks the locks a process holds). The lock file is never
 * opened anywhere else: on Linux closing any descriptor of a locked file drops a POSIX lock.
 */
public final class DirectoryLock implements AutoCloseable {
    /** The lock file's name inside a locked directory. */
    public static final String FILE_NAME = ".lock";

    private final Path directory;
    private final FileChannel channel;
    private final FileLock lock;

    private DirectoryLock(Path directory, FileChannel channel, FileLock lock) {
        this.directory = directory;
        this.channel = channel;
        this.lock = lock;
    }

    /**
     * Takes the lock of {@code directory} (which must exist) for {@code what} (such as "durable
     * log" or "checkpoint directory"), or throws {@link IllegalStateException} naming the
     * directory, the holder's PID where known, and what to do.
     */
    public static DirectoryLock acquire(Path directory, String what) {
        Path file = directory.resolve(FILE_NAME);
        FileChannel channel;
        try {
            channel =
                    FileChannel.open(
                            file,
                            StandardOpenOption.CREATE,
                            StandardOpenOption.READ,
                            StandardOpenOption.WRITE);
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot open the lock file " + file + " of " + what + " " + directory, e);
        }
        FileLock lock;
        try {
            lock = channel.tryLock();
        } catch (OverlappingFileLockException e) {
            closeQuietly(channel);
            throw inUse(
                    directory, what, "this process (pid " + ProcessHandle.current().pid() + ")");
        } catch (IOException e) {
            closeQuietly(channel);
            throw new UncheckedIOException("cannot lock " + what + " " + directory, e);
        }
        if (lock == null) {
            String holder = readHolder(channel);
            closeQuietly(channel);
            throw inUse(directory, what, holder);
        }
        try {
            byte[] pid = (ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.US_ASCII);
            channel.truncate(0);
            channel.write(ByteBuffer.wrap(pid), 0);
        } catch (IOException e) {
            // The PID is only a hint for a refused opener; the lock itself is held.
        }
        return new DirectoryLock(directory, channel, lock);
    }

    private static IllegalStateException inUse(Path directory, String what, String holder) {
        return new IllegalStateException(
                what
                        + " "
                        + directory
                        + " is in use by "
                        + holder
                        + "; only one writer may use it at a time, or both lose acknowledged data."
                        + " Stop the other writer, or use another directory");
    }

    /** The PID the holder wrote, or a phrase saying it is unknown. */
    private static String readHolder(FileChannel channel) {
        try {
            ByteBuffer buffer = ByteBuffer.allocate(32);
            int read = channel.read(buffer, 0);
            String text =
                    read <= 0
                            ? ""
                            : new String(buffer.array(), 0, read, StandardCharsets.US_ASCII).trim();
            return text.matches("[0-9]{1,19}")
                    ? "another process (pid " + text + ")"
                    : "another process";
        } catch (IOException e) {
            return "another process";
        }
    }

    private static void closeQuietly(FileChannel channel) {
        try {
            channel.close();
        } catch (IOException e) {
            // nothing held
        }
    }

    public Path directory() {
        return directory;
    }

    /** Releases the lock; the file stays (deleting it could race with the next holder). */
    @Override
    public void close() {
        try {
            lock.release();
        } catch (IOException e) {
            // closing the channel below releases it too
        }
        closeQuietly(channel);
    }

    /** True if {@code path} is a lock file, which directory scans must skip. */
    public static boolean isLockFile(Path path) {
        return path.getFileName().toString().equals(FILE_NAME) && Files.isRegularFile(path);
    }
}
