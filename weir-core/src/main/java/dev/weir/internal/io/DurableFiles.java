package dev.weir.internal.io;

import dev.weir.api.testing.FaultPoint;
import dev.weir.internal.testhooks.FaultPoints;
import dev.weir.internal.testhooks.PowerCut;
import dev.weir.internal.testhooks.SeededBugs;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * Durable file writes, the primitives every piece of Weir's storage (checkpoints, the file sink,
 * the durable log) builds on: a write forced to disk, an atomic replace (temporary file, fsync,
 * rename, directory fsync), a directory fsync. Each notes what it did in the power-cut journal when
 * {@link PowerCut} is on, and can reach fault points for crash tests.
 */
public final class DurableFiles {
    private DurableFiles() {}

    /** Writes {@code bytes} to {@code path} and forces them to disk. */
    public static void writeDurably(Path path, byte[] bytes) throws IOException {
        writeDurably(path, bytes, null, null);
    }

    /**
     * Like {@link #writeDurably(Path, byte[])}, reaching the fault points {@code midWrite} (half
     * the bytes written) and {@code beforeFsync} when they are not null.
     */
    public static void writeDurably(
            Path path, byte[] bytes, FaultPoint midWrite, FaultPoint beforeFsync)
            throws IOException {
        if (PowerCut.ON) {
            PowerCut.created(path);
        }
        try (FileChannel channel =
                FileChannel.open(
                        path,
                        StandardOpenOption.CREATE,
                        StandardOpenOption.TRUNCATE_EXISTING,
                        StandardOpenOption.WRITE)) {
            ByteBuffer buffer = ByteBuffer.wrap(bytes);
            if (midWrite != null) {
                writeUpTo(channel, buffer, bytes.length / 2);
                FaultPoints.reach(midWrite);
            }
            writeUpTo(channel, buffer, bytes.length);
            if (PowerCut.ON) {
                PowerCut.wrote(path, 0, bytes.length);
            }
            if (beforeFsync != null) {
                FaultPoints.reach(beforeFsync);
            }
            channel.force(true);
            if (PowerCut.ON) {
                PowerCut.synced(path, bytes.length);
            }
        }
    }

    /**
     * The most a heap buffer hands to one {@code FileChannel.write}. The channel copies a heap
     * buffer into a temporary direct buffer of the size it is given, which the JDK keeps per thread
     * only while it is large enough: a multi-megabyte checkpoint file written in one call allocated
     * and zeroed a new direct buffer of its whole size on each checkpoint (10 % of Nexmark q8's CPU
     * in a profile). Slices of this size reuse one cached buffer per writing thread.
     */
    static final int WRITE_SLICE = 256 * 1024;

    /**
     * Writes {@code buffer} from its position up to {@code end}, in slices of at most {@link
     * #WRITE_SLICE}.
     */
    private static void writeUpTo(FileChannel channel, ByteBuffer buffer, int end)
            throws IOException {
        while (buffer.position() < end) {
            buffer.limit(Math.min(end, buffer.position() + WRITE_SLICE));
            while (buffer.hasRemaining()) {
                channel.write(buffer);
            }
        }
    }

    /**
     * Writes {@code bytes} to {@code target} atomically: a temporary file, fsync, rename over the
     * target, fsync of the directory so the rename itself is durable.
     */
    public static void writeAtomically(Path target, byte[] bytes) throws IOException {
        writeAtomically(target, bytes, null);
    }

    /**
     * Like {@link #writeAtomically(Path, byte[])}, reaching the fault point {@code beforeRename}
     * (temporary file written and fsynced) when it is not null.
     */
    public static void writeAtomically(Path target, byte[] bytes, FaultPoint beforeRename)
            throws IOException {
        Path temp = target.resolveSibling(target.getFileName() + ".tmp");
        try {
            writeDurably(temp, bytes);
        } catch (IOException e) {
            try {
                Files.deleteIfExists(temp); // a full disk left it empty or short: not kept
            } catch (IOException notDeleted) {
                e.addSuppressed(notDeleted);
            }
            throw e;
        }
        if (beforeRename != null) {
            FaultPoints.reach(beforeRename);
        }
        Files.move(
                temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        if (PowerCut.ON) {
            PowerCut.renamed(temp, target);
        }
        if (!SeededBugs.RENAME_WITHOUT_FSYNC) {
            fsyncDirectory(target.getParent());
        }
    }

    /** Deletes {@code path}: a file, or a directory with everything under it; absent is fine. */
    public static void deleteRecursively(Path path) throws IOException {
        if (!Files.exists(path)) {
            return;
        }
        try (java.util.stream.Stream<Path> paths = Files.walk(path)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    /** Forces a directory's entries (creations, renames) to disk. */
    public static void fsyncDirectory(Path directory) throws IOException {
        try (FileChannel channel = FileChannel.open(directory, StandardOpenOption.READ)) {
            channel.force(true);
        }
        if (PowerCut.ON) {
            PowerCut.directorySynced(directory);
        }
    }
}
