package dev.weir.api.sink;

import dev.weir.api.codec.Codec;
import dev.weir.internal.io.DurableFiles;
import dev.weir.internal.testhooks.PowerCut;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.reflect.RecordComponent;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
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
    /** How a record becomes a line. */
    public enum Format {
        /** {@code toString()} of the record. */
        LINES(".txt"),
        /**
         * A Java record's components (or {@code toString()}), comma separated, quoted as needed.
         */
        CSV(".csv"),
        /** A Java record as a JSON object of its components; other values as JSON strings. */
        JSON_LINES(".jsonl");

        private final String suffix;

        Format(String suffix) {
            this.suffix = suffix;
        }

        public String suffix() {
            return suffix;
        }
    }

    /**
     * The files of one prepared transaction.
     *
     * @param pending hidden pending file names
     * @param finished the visible names they get on commit, in the same order
     */
    public record Committable(List<String> pending, List<String> finished) {}

    private final String directory;
    private final Format format;
    private final long rollBytes;
    private final long rollIntervalMillis;

    private FileSink(Path directory, Format format, long rollBytes, long rollIntervalMillis) {
        this.directory = directory.toString();
        this.format = format;
        this.rollBytes = rollBytes;
        this.rollIntervalMillis = rollIntervalMillis;
    }

    /** Lines into {@code directory}; roll at 128 MiB, on every checkpoint, no time roll. */
    public static <T> FileSink<T> to(Path directory) {
        return new FileSink<>(directory, Format.LINES, 128L << 20, 0);
    }

    public FileSink<T> format(Format format) {
        return new FileSink<>(
                Path.of(directory), Objects.requireNonNull(format), rollBytes, rollIntervalMillis);
    }

    /** Rolls to a new file once a file has this many bytes. */
    public FileSink<T> rollBytes(long bytes) {
        if (bytes < 1) {
            throw new IllegalArgumentException("rollBytes must be >= 1");
        }
        return new FileSink<>(Path.of(directory), format, bytes, rollIntervalMillis);
    }

    /** Rolls to a new file once a file is this old (zero = never by time). */
    public FileSink<T> rollInterval(Duration interval) {
        return new FileSink<>(Path.of(directory), format, rollBytes, interval.toMillis());
    }

    public long rollBytes() {
        return rollBytes;
    }

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
        return new Writer(dir, context.subtaskIndex(), context.restoredCheckpointId());
    }

    /** The lines of every finished file in {@code directory}, files in name order. */
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
            lines.addAll(Files.readAllLines(file, StandardCharsets.UTF_8));
        }
        return lines;
    }

    /** Formats one record as a line (without the newline). */
    String format(T record) {
        switch (format) {
            case LINES:
                return String.valueOf(record);
            case CSV:
                return csv(record);
            default:
                return json(record);
        }
    }

    private static String csv(Object record) {
        if (!(record instanceof Record r)) {
            return csvField(String.valueOf(record));
        }
        StringBuilder line = new StringBuilder();
        for (RecordComponent component : r.getClass().getRecordComponents()) {
            if (line.length() > 0) {
                line.append(',');
            }
            line.append(csvField(String.valueOf(value(r, component))));
        }
        return line.toString();
    }

    private static String csvField(String text) {
        if (text.contains(",") || text.contains("\"") || text.contains("\n")) {
            return "\"" + text.replace("\"", "\"\"") + "\"";
        }
        return text;
    }

    private static String json(Object record) {
        if (!(record instanceof Record r)) {
            return jsonValue(record);
        }
        StringBuilder line = new StringBuilder("{");
        for (RecordComponent component : r.getClass().getRecordComponents()) {
            if (line.length() > 1) {
                line.append(',');
            }
            line.append(jsonString(component.getName()))
                    .append(':')
                    .append(jsonValue(value(r, component)));
        }
        return line.append('}').toString();
    }

    private static String jsonValue(Object value) {
        if (value == null) {
            return "null";
        }
        if (value instanceof Number || value instanceof Boolean) {
            return value.toString();
        }
        if (value instanceof Record) {
            return json(value);
        }
        return jsonString(value.toString());
    }

    private static String jsonString(String text) {
        StringBuilder out = new StringBuilder("\"");
        for (char c : text.toCharArray()) {
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"').toString();
    }

    private static Object value(Record record, RecordComponent component) {
        try {
            component.getAccessor().setAccessible(true);
            return component.getAccessor().invoke(record);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot read " + component.getName(), e);
        }
    }

    private final class Writer implements TransactionalWriter<T, Committable> {
        private final Path dir;
        private final int subtask;
        private final long restoredCheckpointId;
        private final List<String> rolled = new ArrayList<>();
        private FileChannel channel;
        private OutputStream out;
        private String current;
        private long bytes;
        private long openedAtMillis;
        private long counter = System.nanoTime();

        Writer(Path dir, int subtask, long restoredCheckpointId) {
            this.dir = dir;
            this.subtask = subtask;
            this.restoredCheckpointId = restoredCheckpointId;
        }

        @Override
        public void write(T record) throws IOException {
            if (out == null) {
                current = ".inprogress-" + subtask + "-" + (counter++);
                channel =
                        FileChannel.open(
                                dir.resolve(current),
                                StandardOpenOption.CREATE_NEW,
                                StandardOpenOption.WRITE);
                out =
                        new java.io.BufferedOutputStream(
                                Channels.newOutputStream(channel), 64 * 1024);
                bytes = 0;
                openedAtMillis = System.currentTimeMillis();
            }
            byte[] line = (format(record) + "\n").getBytes(StandardCharsets.UTF_8);
            out.write(line);
            bytes += line.length;
            if (bytes >= rollBytes
                    || (rollIntervalMillis > 0
                            && System.currentTimeMillis() - openedAtMillis >= rollIntervalMillis)) {
                roll();
            }
        }

        /** Syncs the open file and renames it to pending. */
        private void roll() throws IOException {
            if (out == null) {
                return;
            }
            out.flush();
            if (PowerCut.ON) {
                PowerCut.created(dir.resolve(current));
                PowerCut.wrote(dir.resolve(current), 0, bytes);
            }
            channel.force(true);
            if (PowerCut.ON) {
                PowerCut.synced(dir.resolve(current), bytes);
            }
            out.close();
            String pending = ".pending-" + current.substring(".inprogress-".length());
            Files.move(dir.resolve(current), dir.resolve(pending), StandardCopyOption.ATOMIC_MOVE);
            if (PowerCut.ON) {
                PowerCut.renamed(dir.resolve(current), dir.resolve(pending));
            }
            rolled.add(pending);
            out = null;
            channel = null;
            current = null;
        }

        @Override
        public Committable prepareCommit(long checkpointId) throws IOException {
            roll();
            if (rolled.isEmpty()) {
                return null;
            }
            DurableFiles.fsyncDirectory(dir);
            List<String> finished = new ArrayList<>();
            for (int k = 0; k < rolled.size(); k++) {
                finished.add(
                        String.format(
                                "part-%d-%011d-%d%s", subtask, checkpointId, k, format.suffix()));
            }
            Committable committable = new Committable(List.copyOf(rolled), finished);
            rolled.clear();
            return committable;
        }

        @Override
        public void commit(Committable committable) throws IOException {
            for (int i = 0; i < committable.pending().size(); i++) {
                Path pending = dir.resolve(committable.pending().get(i));
                Path finished = dir.resolve(committable.finished().get(i));
                if (Files.exists(finished)) {
                    if (Files.exists(pending)) {
                        // Two transactions claim one name: a checkpoint id was reused. Skipping
                        // would drop the pending records, renaming would drop the finished ones.
                        throw new IllegalStateException(
                                "file sink cannot commit "
                                        + pending
                                        + ": "
                                        + finished
                                        + " already holds another transaction's records, so a"
                                        + " checkpoint id was used twice; was the checkpoint"
                                        + " directory deleted or reset while the output directory"
                                        + " "
                                        + dir
                                        + " was kept? Start over with an empty output directory,"
                                        + " or restore the checkpoints");
                    }
                    continue; // committed before a crash: already done
                }
                if (!Files.exists(pending)) {
                    throw new IllegalStateException(
                            "file sink cannot commit "
                                    + finished
                                    + ": its pending file "
                                    + pending
                                    + " is gone and it was never committed; were files deleted"
                                    + " from "
                                    + dir
                                    + " by hand?");
                }
                Files.move(pending, finished, StandardCopyOption.ATOMIC_MOVE);
                if (PowerCut.ON) {
                    PowerCut.renamed(pending, finished);
                }
            }
            DurableFiles.fsyncDirectory(dir);
        }

        @Override
        public void recoverOwned(List<Committable> committed, int subtask, int parallelism)
                throws IOException {
            java.util.Set<String> recommitted = new java.util.HashSet<>();
            for (Committable c : committed) {
                recommitted.addAll(c.finished());
            }
            try (Stream<Path> entries = Files.list(dir)) {
                for (Path file : (Iterable<Path>) entries::iterator) {
                    String name = file.getFileName().toString();
                    if (restoredCheckpointId >= 0 && !recommitted.contains(name)) {
                        refuseNewerOutput(name, subtask, parallelism);
                    }
                    String rest =
                            name.startsWith(".inprogress-")
                                    ? name.substring(".inprogress-".length())
                                    : name.startsWith(".pending-")
                                            ? name.substring(".pending-".length())
                                            : null;
                    if (rest == null || rest.indexOf('-') < 0) {
                        continue;
                    }
                    int owner = Integer.parseInt(rest.substring(0, rest.indexOf('-')));
                    if (owner % parallelism == subtask) {
                        Files.deleteIfExists(file);
                    }
                }
            }
            DurableFiles.fsyncDirectory(dir);
        }

        /**
         * Refuses a finished file this sink's subtasks committed for a checkpoint newer than the
         * one restored: that checkpoint completed and is lost, and replaying from the older one
         * would write its records again (see {@link SinkContext#restoredCheckpointId()}).
         */
        private void refuseNewerOutput(String name, int subtask, int parallelism) {
            java.util.regex.Matcher part = PART.matcher(name);
            if (!part.matches()) {
                return;
            }
            int owner = Integer.parseInt(part.group(1));
            long checkpoint = Long.parseLong(part.group(2));
            if (owner % parallelism != subtask || checkpoint <= restoredCheckpointId) {
                return;
            }
            throw new dev.weir.api.UnrecoverableException(
                    "file sink output "
                            + dir.resolve(name)
                            + " was committed for checkpoint "
                            + checkpoint
                            + ", but this run "
                            + (restoredCheckpointId == 0
                                    ? "found no complete checkpoint to restore"
                                    : "restored the older checkpoint " + restoredCheckpointId)
                            + ": a newer checkpoint completed and its metadata is lost, and"
                            + " replaying from there would write those records twice. Restore the"
                            + " lost checkpoint (Pipeline.fromSavepoint), or to process the input"
                            + " again on purpose, write to an empty directory or start with"
                            + " CheckpointConfig resume \"none\"");
        }

        @Override
        public void close() throws IOException {
            if (out != null) {
                out.close();
            }
        }
    }

    /** A finished file's name: subtask, checkpoint id, index. */
    private static final java.util.regex.Pattern PART =
            java.util.regex.Pattern.compile("part-(\\d{1,9})-(\\d{1,19})-\\d+\\..*");
}
