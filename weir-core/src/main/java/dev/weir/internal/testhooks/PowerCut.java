package dev.weir.internal.testhooks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Power-cut emulation. SIGKILL leaves the page cache intact, so a killed process loses nothing it
 * wrote; a power cut loses what was not yet forced to disk. With {@code -Dweir.powercut=<journal>}
 * Weir's storage layer (state files, manifests, the file sink, the durable log) notes every write,
 * fsync, rename and directory fsync in a journal; after killing the process, {@link #simulate}
 * turns the files into what a power cut at that moment could have left: bytes written after a
 * file's last fsync dropped or torn at a random point, files created and renames done without a
 * later fsync of their directory undone. Off, every hook is a test of a static final field.
 *
 * <p>Directories are covered where Weir notes their creation (checkpoint directories). Not covered:
 * deleting files (treated as durable).
 */
public final class PowerCut {
    /** True if the journal is on. */
    public static final boolean ON;

    private static final FileChannel JOURNAL;

    static {
        String path = System.getProperty("weir.powercut", "");
        FileChannel journal = null;
        if (!path.isEmpty()) {
            try {
                journal =
                        FileChannel.open(
                                Path.of(path),
                                StandardOpenOption.CREATE,
                                StandardOpenOption.WRITE,
                                StandardOpenOption.APPEND);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        JOURNAL = journal;
        ON = journal != null;
    }

    private PowerCut() {}

    private static synchronized void log(String line) {
        try {
            ByteBuffer buffer = ByteBuffer.wrap((line + "\n").getBytes(StandardCharsets.UTF_8));
            while (buffer.hasRemaining()) {
                JOURNAL.write(buffer);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code file} was created: it survives a cut only after a fsync of its directory. */
    public static void created(Path file) {
        log("C\t" + file.toAbsolutePath());
    }

    /** {@code file} grew from {@code before} to {@code after} bytes (not yet forced). */
    public static void wrote(Path file, long before, long after) {
        log("W\t" + before + "\t" + after + "\t" + file.toAbsolutePath());
    }

    /** {@code file}'s first {@code size} bytes were forced to disk. */
    public static void synced(Path file, long size) {
        log("S\t" + size + "\t" + file.toAbsolutePath());
    }

    /** {@code from} was renamed to {@code to}. */
    public static void renamed(Path from, Path to) {
        log("R\t" + from.toAbsolutePath() + "\t" + to.toAbsolutePath());
    }

    /** {@code directory}'s entries were forced to disk. */
    public static void directorySynced(Path directory) {
        log("D\t" + directory.toAbsolutePath());
    }

    /** What a simulated power cut changed. */
    public record Damage(int truncated, int torn, int deleted, int renamesUndone) {
        /** True if the cut changed anything. */
        public boolean any() {
            return truncated + torn + deleted + renamesUndone > 0;
        }
    }

    private static final class FileState {
        long durable; // bytes known on disk
        long size; // bytes in the page cache
        boolean created; // created by this run: needs a directory fsync to survive
        boolean entryDurable; // its directory entry was forced after its creation or rename
        String renamedFrom; // non-durable rename: where it was before
    }

    /**
     * Applies a power cut at the end of {@code journal} to the files it names, then deletes the
     * journal. Deterministic for a given {@code random}.
     */
    public static Damage simulate(Path journal, Random random) throws IOException {
        if (!Files.exists(journal)) {
            return new Damage(0, 0, 0, 0);
        }
        Map<String, FileState> files = new LinkedHashMap<>();
        List<String> lines = Files.readAllLines(journal, StandardCharsets.UTF_8);
        for (String line : lines) {
            String[] f = line.split("\t");
            switch (f[0]) {
                case "C" -> {
                    FileState state = new FileState();
                    state.created = true;
                    files.put(f[1], state);
                }
                case "W" -> {
                    FileState state = files.get(f[3]);
                    if (state == null) {
                        state = new FileState();
                        state.durable = Long.parseLong(f[1]);
                        state.entryDurable = true;
                        files.put(f[3], state);
                    }
                    state.size = Math.max(state.size, Long.parseLong(f[2]));
                }
                case "S" -> {
                    FileState state = files.computeIfAbsent(f[2], k -> new FileState());
                    state.durable = Long.parseLong(f[1]);
                    state.size = Math.max(state.size, state.durable);
                }
                case "R" -> {
                    FileState state = files.remove(f[1]);
                    if (state == null) {
                        state = new FileState();
                        state.entryDurable = true;
                        state.durable = Long.MAX_VALUE; // untracked content: leave it
                        state.size = Long.MAX_VALUE;
                    }
                    state.renamedFrom = state.renamedFrom != null ? state.renamedFrom : f[1];
                    state.entryDurable = false;
                    files.put(f[2], state);
                }
                case "D" -> {
                    for (Map.Entry<String, FileState> entry : files.entrySet()) {
                        if (Path.of(entry.getKey()).getParent().toString().equals(f[1])) {
                            entry.getValue().entryDurable = true;
                            entry.getValue().renamedFrom = null;
                            entry.getValue().created = false;
                        }
                    }
                }
                default -> throw new IOException("unreadable power-cut journal line: " + line);
            }
        }
        int truncated = 0;
        int torn = 0;
        int deleted = 0;
        int undone = 0;
        Map<String, FileState> byPath = new HashMap<>(files);
        for (Map.Entry<String, FileState> entry : byPath.entrySet()) {
            Path path = Path.of(entry.getKey());
            FileState state = entry.getValue();
            if (!Files.exists(path)) {
                continue;
            }
            if (!state.entryDurable && state.renamedFrom != null) {
                Path back = Path.of(state.renamedFrom);
                Files.move(path, back, StandardCopyOption.REPLACE_EXISTING);
                path = back;
                undone++;
            } else if (!state.entryDurable && state.created) {
                deleteRecursively(path); // a file, or a directory and all it holds
                deleted++;
                continue;
            }
            if (Files.isDirectory(path)) {
                continue;
            }
            if (state.durable != Long.MAX_VALUE && state.size > state.durable) {
                long keep = state.durable;
                if (random.nextBoolean()) {
                    keep += random.nextLong(state.size - state.durable); // a torn write
                    torn++;
                } else {
                    truncated++;
                }
                try (FileChannel channel = FileChannel.open(path, StandardOpenOption.WRITE)) {
                    if (channel.size() > keep) {
                        channel.truncate(keep);
                    }
                }
            }
        }
        Files.delete(journal);
        return new Damage(truncated, torn, deleted, undone);
    }

    private static void deleteRecursively(Path path) throws IOException {
        if (!Files.exists(path)) {
            return;
        }
        try (java.util.stream.Stream<Path> paths = Files.walk(path)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
