package dev.weir.api.sink;

import dev.weir.api.codec.Codec;
import dev.weir.internal.connectors.FileSinkWriter;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.stream.Stream;

/**
 * Writes records to files in a directory, exactly-once: a file becomes visible only when the
 * checkpoint covering its records is complete.
 *
 * <p>Each subtask writes {@code .inprogress-<subtask>-<n>} (hidden); at a checkpoint barrier, and
 * when it reaches {@link #rollBytes} or {@link #rollInterval}, the file is synced and renamed to
 * {@code .pending-<subtask>-<n>} (still hidden); when the checkpoint completes it is renamed to
 * {@code part-<subtask>-<checkpoint>-<k><suffix>} (visible) and the directory synced. Readers that
 * skip names starting with '.' ({@link #readCommitted}) never see partial or uncommitted data.
 * After a crash the next run renames again what the checkpoint held and deletes the other hidden
 * files of its subtasks.
 *
 * @param <T> record type
 */
public final class FileSink<T> implements TwoPhaseCommitSink<T, FileSink.Committable> {
    /** The format the core ships; JSON lines and CSV are in {@code weir-formats}. */
    public enum Format implements RecordFormat<Object> {
        /**
         * {@code toString()} of the record, one record per line. A record whose text holds a line
         * feed, or ends with a carriage return, is refused ({@link IllegalArgumentException}, which
         * fails the job): it would read back as other records. {@code JsonLinesFormat} of {@code
         * weir-formats} escapes both.
         */
        LINES(".txt");

        private final String suffix;

        Format(String suffix) {
            this.suffix = suffix;
        }

        @Override
        public String suffix() {
            return suffix;
        }

        @Override
        public String format(Object record) {
            String text = String.valueOf(record);
            if (text.indexOf('\n') >= 0 || text.endsWith("\r")) {
                String start = text.length() > 60 ? text.substring(0, 60) + "..." : text;
                throw new IllegalArgumentException(
                        "FileSink's LINES format writes one record per line, and the text of this "
                                + record.getClass().getName()
                                + " holds a line feed or ends with a carriage return (\""
                                + start.replace("\r", "\\r").replace("\n", "\\n")
                                + "\"), so it would read back as other records; write such records"
                                + " with JsonLinesFormat (weir-formats), which escapes line breaks,"
                                + " or replace them in a map step");
            }
            return text;
        }
    }

    /**
     * The files of one prepared transaction.
     *
     * @param pending hidden pending file names
     * @param finished the visible names they get on commit, in the same order
     */
    public record Committable(List<String> pending, List<String> finished) {}

    /** Where the files go, as a string so the sink is serialisable. */
    private final String directory;

    /** How each record is written as text. */
    private final RecordFormat<? super T> format;

    /** The size at which a file rolls. */
    private final long rollBytes;

    /** The age at which a file rolls; 0 for never by time. */
    private final long rollIntervalMillis;

    private FileSink(
            Path directory,
            RecordFormat<? super T> format,
            long rollBytes,
            long rollIntervalMillis) {
        this.directory = directory.toString();
        this.format = format;
        this.rollBytes = rollBytes;
        this.rollIntervalMillis = rollIntervalMillis;
    }

    /**
     * Lines into {@code directory}; roll at 128 MiB, on every checkpoint, no time roll.
     *
     * @param <T> the record type
     * @param directory where the files go; created if missing. Do not share it with another sink
     * @return the sink; change its settings with {@link #format}, {@link #rollBytes(long)} and
     *     {@link #rollInterval(Duration)}
     */
    public static <T> FileSink<T> to(Path directory) {
        return new FileSink<>(directory, Format.LINES, 128L << 20, 0);
    }

    /**
     * Writes each record with {@code format}: {@link Format#LINES} (the default), or a {@code
     * JsonLinesFormat} or {@code CsvFormat} of the {@code weir-formats} module, or your own.
     *
     * @param format writes each record as text, and names the files' suffix and header
     * @return a copy of this sink with that format
     * @throws NullPointerException if {@code format} is null
     */
    public FileSink<T> format(RecordFormat<? super T> format) {
        return new FileSink<>(
                Path.of(directory), Objects.requireNonNull(format), rollBytes, rollIntervalMillis);
    }

    /**
     * Rolls to a new file once a file has this many bytes.
     *
     * @param bytes the size at which to roll, at least 1
     * @return a copy of this sink with that size
     * @throws IllegalArgumentException if {@code bytes} is below 1
     */
    public FileSink<T> rollBytes(long bytes) {
        if (bytes < 1) {
            throw new IllegalArgumentException("rollBytes must be >= 1");
        }
        return new FileSink<>(Path.of(directory), format, bytes, rollIntervalMillis);
    }

    /**
     * Rolls to a new file once a file is this old (zero = never by time).
     *
     * @param interval the age at which to roll, to the millisecond; zero or more
     * @return a copy of this sink with that interval
     * @throws IllegalArgumentException if {@code interval} is negative
     */
    public FileSink<T> rollInterval(Duration interval) {
        if (interval.isNegative()) {
            throw new IllegalArgumentException(
                    "rollInterval must be zero (never by time) or more: " + interval);
        }
        return new FileSink<>(Path.of(directory), format, rollBytes, interval.toMillis());
    }

    /** {@return the size in bytes at which a file rolls} */
    public long rollBytes() {
        return rollBytes;
    }

    /** {@return the age at which a file rolls; zero for never by time} */
    public Duration rollInterval() {
        return Duration.ofMillis(rollIntervalMillis);
    }

    @Override
    public String kind() {
        return "file";
    }

    @Override
    public Codec<Committable> committableCodec() {
        return new Codec<>() {
            @Override
            public void encode(Committable value, DataOutput out) throws IOException {
                out.writeInt(value.pending().size());
                for (int i = 0; i < value.pending().size(); i++) {
                    out.writeUTF(value.pending().get(i));
                    out.writeUTF(value.finished().get(i));
                }
            }

            @Override
            public Committable decode(DataInput in) throws IOException {
                int count = in.readInt();
                List<String> pending = new ArrayList<>();
                List<String> finished = new ArrayList<>();
                for (int i = 0; i < count; i++) {
                    pending.add(in.readUTF());
                    finished.add(in.readUTF());
                }
                return new Committable(pending, finished);
            }
        };
    }

    @Override
    public TransactionalWriter<T, Committable> createTransactionalWriter(SinkContext context)
            throws IOException {
        Path dir = Path.of(directory);
        Files.createDirectories(dir);
        return new FileSinkWriter<>(
                dir,
                context,
                new FileSinkWriter.Settings<>(
                        format::format,
                        format.header(),
                        format.suffix(),
                        rollBytes,
                        rollIntervalMillis));
    }

    /**
     * The lines of every finished file in {@code directory}, files in name order (headers included;
     * a CSV field holding a line break spans two lines: read such files with a CSV parser). Lines
     * end at line feeds, and a carriage return just before one is dropped, as {@code Sources.files}
     * reads them: a lone carriage return inside a record stays in it.
     *
     * @param directory the sink's directory
     * @return the lines of its visible files, read as UTF-8; empty if the directory does not exist
     * @throws IOException if a file cannot be read
     */
    public static List<String> readCommitted(Path directory) throws IOException {
        List<String> lines = new ArrayList<>();
        if (!Files.isDirectory(directory)) {
            return lines;
        }
        List<Path> files;
        try (Stream<Path> entries = Files.list(directory)) {
            files =
                    entries.filter(p -> !p.getFileName().toString().startsWith("."))
                            .sorted()
                            .toList();
        }
        for (Path file : files) {
            String text = Files.readString(file, StandardCharsets.UTF_8);
            int start = 0;
            while (start < text.length()) {
                int end = text.indexOf('\n', start);
                int next = end < 0 ? text.length() : end + 1;
                end = end < 0 ? text.length() : end;
                if (end > start && text.charAt(end - 1) == '\r') {
                    end--;
                }
                lines.add(text.substring(start, end));
                start = next;
            }
        }
        return lines;
    }
}
