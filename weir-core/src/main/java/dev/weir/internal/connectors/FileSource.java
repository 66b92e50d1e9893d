package dev.weir.internal.connectors;

import dev.weir.api.UnrecoverableException;
import dev.weir.api.function.Collector;
import dev.weir.api.source.ReadStatus;
import dev.weir.api.source.Source;
import dev.weir.api.source.SourceContext;
import dev.weir.api.source.SourceReader;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

/**
 * Lines of the files in a directory, in file-name order; replayable.
 *
 * <p>The source has a fixed number of splits, whatever its parallelism, so a checkpoint restores at
 * any parallelism; split {@code i} of {@code n} reads the files whose name hashes to {@code i}, one
 * after the other in name order. Its offset is the byte position in the file being read, and its
 * reader state the name of that file plus the names of the files already done, so a restore resumes
 * at the exact byte. Files whose name starts with '.' or '_' are ignored: write a file under such a
 * name and rename it when complete. Bounded mode ends when the files present at start are read;
 * watching mode lists the directory again every {@code pollMillis} and never ends, and also reads
 * what is appended to a file it has read; there a line is read once its newline has arrived (a
 * writer's block may end mid-line), so a last line without a newline waits for one. Its reader
 * state keeps how far each finished file was read, so a restore reads each appended line once.
 */
public final class FileSource implements Source<String> {
    private static final int CHUNK_BYTES = 64 * 1024;

    /**
     * Bytes before the position in the file being read whose checksum a snapshot keeps, so that a
     * restore tells a replaced file from the one read (checked against the file's bytes once, at
     * the restore).
     */
    private static final int FINGERPRINT_BYTES = 64 * 1024;

    /** The fingerprint in a split's state: its end, its length and its checksum. */
    private static final int FINGERPRINT_STATE_BYTES = Long.BYTES + 2 * Integer.BYTES;

    /** Splits of {@code Sources.files(dir)}: enough for the parallelism of one machine. */
    public static final int DEFAULT_SPLITS = 16;

    private final String directory;
    private final boolean watch;
    private final long pollMillis;
    private final int splitCount;

    public FileSource(Path directory, boolean watch, long pollMillis, int splits) {
        if (splits < 1 || splits > 10_000) {
            throw new IllegalArgumentException(
                    "a files source needs 1..10000 splits, got " + splits);
        }
        this.directory = directory.toString();
        this.watch = watch;
        this.pollMillis = pollMillis;
        this.splitCount = splits;
    }

    @Override
    public String kind() {
        return "files";
    }

    @Override
    public boolean isReplayable() {
        return true;
    }

    @Override
    public List<String> splits(int parallelism) {
        List<String> splits = new ArrayList<>();
        for (int i = 0; i < splitCount; i++) {
            splits.add("files-" + i + "-of-" + splitCount);
        }
        return splits;
    }

    @Override
    public SourceReader<String> openReader(String split, SourceContext context) throws IOException {
        String[] parts = split.split("-");
        return new Reader(Integer.parseInt(parts[1]), Integer.parseInt(parts[3]), context);
    }

    private final class Reader implements SourceReader<String> {
        private final int index;
        private final int count;
        private final SourceContext context;

        /** Finished files: how far each was read (its size then). */
        private final java.util.TreeMap<String, Long> done = new java.util.TreeMap<>();

        /**
         * Watching mode: the size each finished file had when it was last finished or restored; a
         * listing that finds it larger reads on from its {@link #done} position.
         */
        private final java.util.Map<String, Long> finishedSizes = new java.util.HashMap<>();

        /** Watching mode: finished files the last listing found longer, to read on from. */
        private final TreeSet<String> grown = new TreeSet<>();

        private final TreeSet<String> known = new TreeSet<>();

        /** Each known file's size when the directory was last listed: for {@link #lag()} only. */
        private final java.util.Map<String, Long> listedSizes = new java.util.HashMap<>();

        private String current;
        private long position;
        private FileChannel channel;
        private final ByteBuffer chunk = ByteBuffer.allocate(CHUNK_BYTES);
        private final ByteArrayOutputStream partialLine = new ByteArrayOutputStream();
        private long lastListNanos = Long.MIN_VALUE;
        private boolean listedOnce;

        /** The file last warned about for bytes that are not UTF-8. */
        private String warnedNotUtf8;

        /**
         * The restored checkpoint's fingerprint of the file being read: the checksum of its {@code
         * fingerprintLength} bytes before {@code fingerprintEnd} (-1: none restored).
         */
        private long fingerprintEnd = -1;

        private int fingerprintLength;
        private long fingerprintChecksum;

        Reader(int index, int count, SourceContext context) {
            this.index = index;
            this.count = count;
            this.context = context;
        }

        private boolean mine(String name) {
            return !name.startsWith(".")
                    && !name.startsWith("_")
                    && Math.floorMod(name.hashCode(), count) == index;
        }

        private void list() throws IOException {
            lastListNanos = context.nanoTime();
            listedOnce = true;
            try (Stream<Path> files = Files.list(Path.of(directory))) {
                files.filter(Files::isRegularFile)
                        .map(p -> p.getFileName().toString())
                        .filter(this::mine)
                        .forEach(
                                name -> {
                                    known.add(name);
                                    listedSizes.put(name, sizeOf(name));
                                });
            } catch (NoSuchFileException e) {
                // A restart would find it missing again: fail at once, not after the budget.
                throw new UnrecoverableException(
                        "file source directory "
                                + directory
                                + " does not exist; create it or fix the path",
                        e);
            } catch (java.nio.file.NotDirectoryException e) {
                throw new UnrecoverableException(
                        "file source directory "
                                + directory
                                + " is a file, not a directory; pass the directory that holds the"
                                + " input files",
                        e);
            }
        }

        @Override
        public ReadStatus poll(Collector<String> out, int maxRecords) throws Exception {
            if (current == null && !advance()) {
                return watch ? ReadStatus.NOTHING_AVAILABLE : ReadStatus.END_OF_INPUT;
            }
            int emitted = 0;
            while (emitted < maxRecords) {
                chunk.clear();
                int read = channel.read(chunk, position + partialLine.size());
                if (read <= 0) {
                    // The file's end as this read found it: what is appended later is growth,
                    // even if it is appended before this file is finished below.
                    long end = position + partialLine.size();
                    if (partialLine.size() > 0) {
                        if (watch) {
                            // Its newline may be on the way (a writer's next block): read it
                            // whole once the file grows, from where it starts.
                            partialLine.reset();
                        } else {
                            emitLine(out);
                            emitted++;
                        }
                    }
                    finishFile(end);
                    return ReadStatus.MORE_AVAILABLE;
                }
                chunk.flip();
                byte[] bytes = chunk.array();
                int lineStart = 0;
                for (int i = 0; i < chunk.limit() && emitted < maxRecords; i++) {
                    if (bytes[i] == '\n') {
                        partialLine.write(bytes, lineStart, i - lineStart);
                        emitLine(out);
                        emitted++;
                        lineStart = i + 1;
                    }
                }
                if (emitted >= maxRecords) {
                    // The rest of the chunk is re-read next time from the new position.
                    return ReadStatus.MORE_AVAILABLE;
                }
                partialLine.write(bytes, lineStart, chunk.limit() - lineStart);
            }
            return ReadStatus.MORE_AVAILABLE;
        }

        /** Emits the buffered line and moves the position past it (and its newline, if any). */
        private void emitLine(Collector<String> out) throws IOException {
            byte[] line = partialLine.toByteArray();
            partialLine.reset();
            long start = position;
            long next = position + line.length;
            if (next < channel.size()) {
                next++;
            }
            position = next;
            int length = line.length;
            if (length > 0 && line[length - 1] == '\r') {
                length--;
            }
            String text = new String(line, 0, length, StandardCharsets.UTF_8);
            // Free for text of Latin-1 characters only (such a string cannot hold U+FFFD).
            if (text.indexOf('\uFFFD') >= 0 && !current.equals(warnedNotUtf8)) {
                warnIfNotUtf8(line, length, start);
            }
            out.collect(text);
        }

        /**
         * Warns once per file whose line at {@code at} holds bytes that are not UTF-8: they are
         * read as U+FFFD, which a U+FFFD written in the file would not warn about.
         */
        private void warnIfNotUtf8(byte[] line, int length, long at) {
            try {
                // A new decoder reports malformed input (String's constructor replaces it).
                StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(line, 0, length));
            } catch (java.nio.charset.CharacterCodingException e) {
                warnedNotUtf8 = current;
                org.slf4j.LoggerFactory.getLogger(FileSource.class)
                        .warn(
                                "file {} holds bytes that are not UTF-8, first in the line at"
                                        + " byte {}: the files source reads UTF-8, and each such"
                                        + " sequence becomes U+FFFD in the records (said once per"
                                        + " file). Convert the file to UTF-8 (e.g. iconv -f"
                                        + " ISO-8859-1 -t UTF-8) if that is not what you want",
                                Path.of(directory).resolve(current),
                                at);
            }
        }

        private boolean advance() throws IOException {
            if (!listedOnce
                    || (watch && context.nanoTime() - lastListNanos >= pollMillis * 1_000_000)) {
                list();
                if (watch) {
                    // Only against a fresh listing: sizes listed before a file was read further
                    // would look like a truncation.
                    for (java.util.Map.Entry<String, Long> finished : done.entrySet()) {
                        if (grew(finished.getKey(), finished.getValue())) {
                            grown.add(finished.getKey());
                        }
                    }
                }
            }
            for (String name : known) {
                Long readTo = done.get(name);
                if (readTo == null) {
                    open(name, 0);
                    return true;
                }
                if (grown.remove(name)) {
                    open(name, readTo);
                    return true;
                }
            }
            return false;
        }

        /** Watching mode: whether finished file {@code name} got longer since it was finished. */
        private boolean grew(String name, long readTo) {
            long listed = listedSizes.getOrDefault(name, 0L);
            long finished = finishedSizes.getOrDefault(name, readTo);
            if (listed < readTo && finished >= readTo) {
                finishedSizes.put(name, listed); // warn once per shrink
                warnChanged(
                        name,
                        "is now " + listed + " bytes, shorter than the " + readTo + " already read",
                        "",
                        "what it holds now is not read");
                return false;
            }
            return listed > finished && listed > readTo;
        }

        private void open(String name, long at) throws IOException {
            current = name;
            position = at;
            partialLine.reset();
            channel = FileChannel.open(Path.of(directory).resolve(name), StandardOpenOption.READ);
        }

        /**
         * Finishes the file being read, whose end a read found at {@code end}. Its size now would
         * be wrong: a line completed by an append since that read would count as read, and a
         * watching source would never read it (seen under load).
         */
        private void finishFile(long end) throws IOException {
            done.put(current, position);
            finishedSizes.put(current, Math.max(position, end));
            current = null;
            position = 0;
            channel.close();
            channel = null;
        }

        private long sizeOf(String name) {
            try {
                return Files.size(Path.of(directory).resolve(name));
            } catch (IOException e) {
                return 0; // gone or unreadable: reading it will say so; the lag just omits it
            }
        }

        @Override
        public long position() {
            return position;
        }

        /**
         * Bytes not read yet: the rest of the file being read, plus the files of this split listed
         * and not yet read, plus what finished files grew by (at the sizes they had when listed; a
         * watching source lists again every {@code pollMillis}; a bounded one does not read what
         * finished files grew by, and a restore of its ended split warns about it).
         */
        @Override
        public long lag() {
            if (!listedOnce) {
                return -1; // the directory was not listed yet: unknown, not caught up
            }
            long bytes = 0;
            if (channel != null) {
                try {
                    bytes += Math.max(0, channel.size() - position);
                } catch (IOException e) {
                    return -1;
                }
            }
            for (String name : known) {
                Long readTo = done.get(name);
                if (!name.equals(current)) {
                    long listed = listedSizes.getOrDefault(name, 0L);
                    bytes += readTo == null ? listed : Math.max(0, listed - readTo);
                }
            }
            return bytes;
        }

        /**
         * Restores the position in the file being read. That position is always at the start of a
         * line; if the file is now shorter, or the byte before it is no newline, the file was
         * truncated or replaced since the checkpoint. A warning says so, and reading goes on at its
         * end, or at its next line, instead of emitting the torn rest of a line.
         */
        @Override
        public void seek(long position) throws IOException {
            if (current == null) {
                return;
            }
            open(current, position);
            long size = channel.size();
            if (size < position) {
                warnChanged(
                        current,
                        "is now " + size + " bytes, shorter than the " + position + " already read",
                        " since the checkpoint",
                        "its rest is not read");
                this.position = size;
            } else if (position > 0 && byteAt(position - 1) != '\n') {
                long next = nextLineStart(position);
                warnChanged(
                        current,
                        "has no line ending before the " + position + " bytes already read",
                        " since the checkpoint",
                        "reading goes on at its next line, byte " + next);
                this.position = next;
            } else if (position == fingerprintEnd
                    && checksumBefore(position, fingerprintLength) != fingerprintChecksum) {
                warnChanged(
                        current,
                        "differs in its "
                                + fingerprintLength
                                + " bytes before byte "
                                + position
                                + " from what was read there",
                        " since the checkpoint",
                        "what it now holds before that byte is not read, and reading goes on"
                                + " there");
            }
            fingerprintEnd = -1;
        }

        /**
         * The CRC-32C of the file's {@code length} bytes before {@code end}, read into the reader's
         * chunk (free between polls), or -1 if the file ends before {@code end}. Kept in a
         * snapshot, it tells at the restore a file replaced by one whose lines end where the read
         * ones did (such as a {@code sed -i} edit near the position) from the file read.
         */
        private long checksumBefore(long end, int length) throws IOException {
            CRC32C checksum = new CRC32C();
            for (long at = end - length; at < end; ) {
                chunk.clear().limit((int) Math.min(chunk.capacity(), end - at));
                int read = channel.read(chunk, at);
                if (read <= 0) {
                    return -1;
                }
                checksum.update(chunk.flip());
                at += read;
            }
            return checksum.getValue();
        }

        /** Warns that file {@code name}, partly read, was truncated or replaced {@code since}. */
        private void warnChanged(String name, String what, String since, String consequence) {
            org.slf4j.LoggerFactory.getLogger(FileSource.class)
                    .warn(
                            "file {} {}: truncated or replaced{}, so {}. Write new data to new"
                                    + " files (or append to this one) instead",
                            Path.of(directory).resolve(name),
                            what,
                            since,
                            consequence);
        }

        /**
         * The byte at {@code at}, read into the reader's chunk (free between polls); -1 past the
         * end.
         */
        private int byteAt(long at) throws IOException {
            chunk.clear().limit(1);
            return channel.read(chunk, at) == 1 ? chunk.get(0) : -1;
        }

        /** The position after the first newline at or after {@code from}, or the file's end. */
        private long nextLineStart(long from) throws IOException {
            long at = from;
            for (int read; (read = channel.read(chunk.clear(), at)) > 0; at += read) {
                for (int i = 0; i < read; i++) {
                    if (chunk.get(i) == '\n') {
                        return at + i + 1;
                    }
                }
            }
            return at;
        }

        @Override
        public byte[] snapshotState() throws IOException {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (DataOutputStream out = new DataOutputStream(bytes)) {
                out.writeBoolean(current != null);
                if (current != null) {
                    out.writeUTF(current);
                }
                out.writeInt(done.size());
                for (String name : done.keySet()) {
                    out.writeUTF(name);
                }
                // Added later, after the names, so that state written before still reads: how
                // far each finished file was read.
                for (long readTo : done.values()) {
                    out.writeLong(readTo);
                }
                // Added later again, at the end: the fingerprint of the file being read.
                if (current != null) {
                    int length = (int) Math.min(position, FINGERPRINT_BYTES);
                    out.writeLong(position);
                    out.writeInt(length);
                    out.writeInt((int) checksumBefore(position, length));
                }
            }
            return bytes.toByteArray();
        }

        @Override
        public void restoreState(byte[] state) throws IOException {
            try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(state))) {
                String restoredCurrent = in.readBoolean() ? in.readUTF() : null;
                int doneCount = in.readInt();
                done.clear();
                finishedSizes.clear();
                grown.clear();
                List<String> names = new ArrayList<>(doneCount);
                for (int i = 0; i < doneCount; i++) {
                    names.add(in.readUTF());
                }
                boolean withPositions = in.available() >= (long) Long.BYTES * doneCount;
                list();
                for (String name : names) {
                    // State written before positions were kept: each file as it is now.
                    long readTo =
                            withPositions ? in.readLong() : listedSizes.getOrDefault(name, 0L);
                    done.put(name, readTo);
                    finishedSizes.put(name, readTo);
                }
                fingerprintEnd = -1;
                if (restoredCurrent != null && in.available() >= FINGERPRINT_STATE_BYTES) {
                    fingerprintEnd = in.readLong();
                    fingerprintLength = in.readInt();
                    fingerprintChecksum = in.readInt() & 0xFFFF_FFFFL;
                }
                known.addAll(done.keySet());
                if (restoredCurrent != null) {
                    Path file = Path.of(directory).resolve(restoredCurrent);
                    if (!Files.exists(file)) {
                        // Unrecoverable: every restart restores this same checkpoint.
                        throw new UnrecoverableException(
                                "file "
                                        + file
                                        + " was being read at the checkpoint but is gone; restore it"
                                        + " or start without this checkpoint");
                    }
                    known.add(restoredCurrent);
                    open(restoredCurrent, 0);
                }
            }
        }

        @Override
        public void close() throws IOException {
            if (channel != null) {
                channel.close();
            }
        }
    }
}
