package dev.weir.cli;

import dev.weir.api.log.DurableLog;
import dev.weir.api.log.LogEntry;
import dev.weir.api.log.LogOptions;
import dev.weir.api.log.LogRecord;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code weir log}: the embedded durable log from the command line. */
@Command(
        name = "log",
        description = "Creates, appends to and reads topics of Weir's embedded durable log.",
        subcommands = {
            LogCommand.Create.class,
            LogCommand.Append.class,
            LogCommand.Tail.class,
            LogCommand.Offsets.class,
            LogCommand.Topics.class
        })
public final class LogCommand implements Callable<Integer> {
    @Option(names = "--dir", description = "Log directory (default ${DEFAULT-VALUE}).")
    Path dir = Path.of("weir-data", "log");

    @Spec CommandSpec spec;

    PrintStream out = System.out;

    @Override
    public Integer call() {
        return WeirCli.missingSubcommand(spec);
    }

    /**
     * Refuses a topic name the log would refuse (such as {@code ../x}) as a usage error, before
     * anything is opened or read.
     */
    static void checkTopicName(CommandSpec spec, String topic) {
        try {
            DurableLog.checkTopicName(topic);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage(), e);
        }
    }

    /**
     * Opens the log for writing: takes the directory's lock, so a second writing process is refused
     * with the holder's PID. A refusal or failure of the log (missing topic, damaged file)
     * propagates to {@link WeirCli}, which prints it as one line with status 1; a bad topic name is
     * refused before, as a usage error (status 2).
     */
    DurableLog open() {
        return DurableLog.open(dir, LogOptions.defaults());
    }

    /**
     * Opens the log for reading: no lock, nothing written, so it works beside a running writer and
     * shows what that writer made durable.
     */
    DurableLog openReadOnly() {
        return DurableLog.openReadOnly(dir, LogOptions.defaults());
    }

    /** {@code weir log create TOPIC --partitions N}. */
    @Command(name = "create", description = "Creates a topic (does nothing if it exists alike).")
    static final class Create implements Callable<Integer> {
        @ParentCommand LogCommand parent;

        @Spec CommandSpec spec;

        @Parameters(index = "0", description = "Topic name.")
        String topic;

        @Option(
                names = "--partitions",
                converter = Numbers.Partitions.class,
                description = "Partitions, 1 to 10000 (default ${DEFAULT-VALUE}).")
        int partitions = 1;

        @Override
        public Integer call() throws Exception {
            checkTopicName(spec, topic);
            try (DurableLog log = parent.open()) {
                log.createTopic(topic, partitions);
            }
            parent.out.println(
                    "topic " + topic + " has " + partitions + " partition(s) in " + parent.dir);
            return 0;
        }
    }

    /**
     * {@code weir log append TOPIC}: one record per line of standard input, as bytes: a record is
     * what lies between line feeds, less a carriage return just before the line feed (CRLF files);
     * nothing is decoded, so bytes that are not UTF-8 and lone carriage returns are kept as they
     * are.
     */
    @Command(
            name = "append",
            description =
                    "Appends each line of standard input as a record: the bytes between line feeds"
                            + " as they are (a CR before the LF dropped).")
    static final class Append implements Callable<Integer> {
        @ParentCommand LogCommand parent;

        @Spec CommandSpec spec;

        @Parameters(index = "0", description = "Topic name.")
        String topic;

        @Option(
                names = "--partition",
                converter = Numbers.NonNegativeInt.class,
                description = "Partition (default ${DEFAULT-VALUE}).")
        int partition;

        @Option(
                names = "--batch",
                converter = Numbers.PositiveInt.class,
                description = "Records per fsynced batch (default ${DEFAULT-VALUE}).")
        int batch = 1000;

        @Option(
                names = "--codec",
                description =
                        "raw (default): each line's bytes as they are; string: each line, which"
                                + " must be UTF-8, as Codecs.STRING writes it, for a job reading"
                                + " the topic with Sources.log(dir, topic, Codecs.STRING).")
        RecordCodec codec = RecordCodec.raw;

        @Override
        public Integer call() throws Exception {
            return append();
        }

        private int append() throws Exception {
            checkTopicName(spec, topic);
            long appended = 0;
            long first = -1;
            try (DurableLog log = parent.open();
                    Lines in = new Lines(System.in)) {
                log.checkPartition(topic, partition); // before any input is read
                List<byte[]> records = new ArrayList<>();
                byte[] record;
                // Progress in input bytes (of a known total when the input is a file) on
                // standard error; the result line stays alone on standard output.
                ProgressReporter progress =
                        ProgressReporter.onStandardError(
                                "append", ProgressReporter.standardInputSize(), "bytes");
                try {
                    while ((record = in.next()) != null) {
                        records.add(codec.encode(record, appended + records.size() + 1));
                        if (records.size() == batch) {
                            long at = log.append(topic, partition, records);
                            first = first < 0 ? at : first;
                            appended += records.size();
                            records.clear();
                            progress.update(
                                    in.consumed(),
                                    String.format(java.util.Locale.ROOT, "%,d records", appended));
                        }
                    }
                    if (!records.isEmpty()) {
                        long at = log.append(topic, partition, records);
                        first = first < 0 ? at : first;
                        appended += records.size();
                    }
                } catch (RuntimeException e) {
                    // Say what is in the log now: a retry of all the input would append the
                    // first lines twice.
                    throw new IllegalStateException(
                            e.getMessage()
                                    + "; the first "
                                    + appended
                                    + " input line(s) were appended"
                                    + (appended > 0
                                            ? " (offsets "
                                                    + first
                                                    + ".."
                                                    + (first + appended - 1)
                                                    + ")"
                                            : "")
                                    + ", the rest were not: after fixing the cause, append from"
                                    + " input line "
                                    + (appended + 1)
                                    + " on (for example: tail -n +"
                                    + (appended + 1)
                                    + " FILE | weir log append ...)",
                            e);
                } finally {
                    progress.finish();
                }
                parent.out.println(
                        "appended "
                                + appended
                                + " record(s) to "
                                + topic
                                + "-"
                                + partition
                                + (appended > 0
                                        ? " at offsets " + first + ".." + (first + appended - 1)
                                        : ""));
            }
            return 0;
        }
    }

    /**
     * {@code weir log tail TOPIC}: prints committed records as {@code offset<TAB>text}; with {@code
     * --show-markers} every stored record, transaction markers and uncommitted records marked.
     */
    @Command(
            name = "tail",
            description =
                    "Prints the committed records of a partition from an offset (read-committed,"
                            + " like Sources.log): a line per record, its offset, a tab and its"
                            + " bytes exactly as stored (as 'log append' took them).")
    static final class Tail implements Callable<Integer> {
        @ParentCommand LogCommand parent;

        @Spec CommandSpec spec;

        @Parameters(index = "0", description = "Topic name.")
        String topic;

        @Option(
                names = "--partition",
                converter = Numbers.NonNegativeInt.class,
                description = "Partition (default ${DEFAULT-VALUE}).")
        int partition;

        @Option(
                names = "--from",
                converter = Numbers.NonNegativeLong.class,
                description = "First offset (default: the last 10 offsets).")
        Long from;

        @Option(
                names = "--max",
                converter = Numbers.PositiveLong.class,
                description =
                        "Most records to print (default: 10000; with --follow, no limit: it ends"
                                + " after that many).")
        Long max;

        @Option(
                names = {"-f", "--follow"},
                description =
                        "Keep printing records as they are committed, until --max records are"
                                + " printed or the command is interrupted (Ctrl-C).")
        boolean follow;

        @Option(
                names = "--poll-ms",
                converter = Numbers.PositiveLong.class,
                description =
                        "With --follow: milliseconds between looks for new records (default"
                                + " ${DEFAULT-VALUE}).")
        long pollMs = 200;

        @Option(
                names = "--codec",
                description =
                        "raw (default): print each record's bytes as they are; string: decode"
                                + " each with Codecs.STRING (records a job wrote with it, or"
                                + " `append --codec string`) and print the text.")
        RecordCodec codec = RecordCodec.raw;

        @Option(
                names = "--show-markers",
                description =
                        "Also print transaction markers and records of transactions that did not"
                                + " (yet) commit, each marked.")
        boolean showMarkers;

        @Override
        public Integer call() throws Exception {
            return tail();
        }

        private int tail() throws InterruptedException {
            checkTopicName(spec, topic);
            if (follow && showMarkers) {
                throw new ParameterException(
                        spec.commandLine(),
                        "--follow prints committed records only; leave out --show-markers");
            }
            try (DurableLog log = parent.openReadOnly()) {
                long end = log.endOffset(topic, partition);
                long start =
                        from != null ? from : Math.max(log.startOffset(topic, partition), end - 10);
                if (showMarkers) {
                    printWithMarkers(log, start, (int) Math.min(limit(), Integer.MAX_VALUE));
                    return 0;
                }
                long printed = 0;
                long next = start;
                while (printed < limit()) {
                    int chunk = (int) Math.min(limit() - printed, 4096);
                    List<LogRecord> records = log.read(topic, partition, next, chunk);
                    for (LogRecord record : records) {
                        printRecord(record.offset(), "", record.payload());
                        next = record.offset() + 1;
                    }
                    printed += records.size();
                    if (records.isEmpty()) {
                        if (!follow) {
                            break;
                        }
                        parent.out.flush();
                        Thread.sleep(
                                pollMs); // polling the files: the writer may be another process
                    }
                }
            }
            return 0;
        }

        private long limit() {
            return max != null ? max : follow ? Long.MAX_VALUE : 10_000;
        }

        private void printWithMarkers(DurableLog log, long start, int limit) {
            Set<Long> visible = new HashSet<>();
            for (LogRecord record : log.read(topic, partition, start, limit)) {
                visible.add(record.offset());
            }
            for (LogEntry entry : log.readUncommitted(topic, partition, start, limit)) {
                switch (entry.kind()) {
                    case DATA -> printRecord(entry.offset(), "", entry.payload());
                    case TRANSACTION_DATA ->
                            printRecord(
                                    entry.offset(),
                                    visible.contains(entry.offset())
                                            ? ""
                                            : "[uncommitted, transaction "
                                                    + entry.transaction()
                                                    + "]\t",
                                    entry.payload());
                    case BEGIN ->
                            parent.out.println(
                                    entry.offset()
                                            + "\t[BEGIN transaction "
                                            + entry.transaction()
                                            + "]");
                    case COMMIT ->
                            parent.out.println(
                                    entry.offset()
                                            + "\t[COMMIT transaction "
                                            + entry.transaction()
                                            + "]");
                }
            }
        }

        /**
         * The offset, a tab, {@code marker}, then the record's bytes as stored, and a line feed.
         */
        private void printRecord(long offset, String marker, byte[] stored) {
            byte[] payload = codec.decode(stored, offset);
            byte[] head = (offset + "\t" + marker).getBytes(StandardCharsets.UTF_8);
            parent.out.write(head, 0, head.length);
            parent.out.write(payload, 0, payload.length);
            parent.out.write('\n');
        }
    }

    /**
     * How {@code append} turns an input line into a record and {@code tail} a record into printed
     * bytes: {@code raw} keeps the bytes; {@code string} is {@code Codecs.STRING}'s form (the
     * length, then the UTF-8 bytes), which a job reads with {@code Sources.log(dir, topic,
     * Codecs.STRING)}.
     */
    enum RecordCodec {
        raw,
        string;

        /** The record for input line {@code line} (1-based, for the error). */
        byte[] encode(byte[] bytes, long line) {
            if (this == raw) {
                return bytes;
            }
            try {
                // A new decoder reports malformed input rather than replacing it.
                StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(bytes));
            } catch (java.nio.charset.CharacterCodingException e) {
                throw new IllegalArgumentException(
                        "input line "
                                + line
                                + " is not UTF-8, which --codec string needs (a string record"
                                + " holds text); append such input with --codec raw");
            }
            return dev.weir.api.codec.Codecs.BYTES.toBytes(bytes);
        }

        /** The bytes to print for the record at {@code offset}. */
        byte[] decode(byte[] stored, long offset) {
            if (this == raw) {
                return stored;
            }
            String why;
            try {
                byte[] text = dev.weir.api.codec.Codecs.BYTES.fromBytes(stored);
                if (text.length + Integer.BYTES == stored.length) {
                    return text;
                }
                why = "its length says " + text.length + " bytes of text";
            } catch (RuntimeException e) {
                why = e.getMessage();
            }
            throw new IllegalArgumentException(
                    "the record at offset "
                            + offset
                            + " ("
                            + stored.length
                            + " bytes) is not a Codecs.STRING record ("
                            + why
                            + "); print it with --codec raw");
        }
    }

    /** {@code weir log offsets TOPIC}: start and end offset of every partition. */
    @Command(name = "offsets", description = "Prints the start and end offset of each partition.")
    static final class Offsets implements Callable<Integer> {
        @ParentCommand LogCommand parent;

        @Spec CommandSpec spec;

        @Parameters(index = "0", description = "Topic name.")
        String topic;

        @Override
        public Integer call() throws Exception {
            return offsets();
        }

        private int offsets() {
            checkTopicName(spec, topic);
            try (DurableLog log = parent.openReadOnly()) {
                for (int p = 0; p < log.partitions(topic); p++) {
                    parent.out.println(
                            topic
                                    + "-"
                                    + p
                                    + " start="
                                    + log.startOffset(topic, p)
                                    + " end="
                                    + log.endOffset(topic, p));
                }
            }
            return 0;
        }
    }

    /**
     * {@code weir log topics [DIR]}: every topic with its partitions and records; for a directory
     * with no topic but other entries, a note on standard error (status 0 still).
     */
    @Command(
            name = "topics",
            description =
                    "Lists the topics of a log directory: partitions and offsets of each (reads"
                            + " only; works beside a running writer).")
    static final class Topics implements Callable<Integer> {
        @ParentCommand LogCommand parent;

        @Parameters(
                index = "0",
                arity = "0..1",
                description = "Log directory (default: the --dir of weir log).")
        Path directory;

        @Override
        public Integer call() throws Exception {
            return topics();
        }

        private int topics() {
            Path dir = directory != null ? directory : parent.dir;
            if (!Files.isDirectory(dir)) {
                throw new IllegalArgumentException("no log directory " + dir);
            }
            try (DurableLog log = DurableLog.openReadOnly(dir, LogOptions.defaults())) {
                List<String> names = new ArrayList<>(log.topics());
                Collections.sort(names);
                for (String topic : names) {
                    int partitions = log.partitions(topic);
                    long stored = 0;
                    StringBuilder ends = new StringBuilder();
                    for (int p = 0; p < partitions; p++) {
                        long start = log.startOffset(topic, p);
                        long end = log.endOffset(topic, p);
                        stored += end - start;
                        ends.append(p == 0 ? "" : ",").append(start).append("..").append(end);
                    }
                    parent.out.println(
                            topic
                                    + " partitions="
                                    + partitions
                                    + " offsets="
                                    + stored
                                    + " ranges="
                                    + ends);
                }
                if (names.isEmpty()) {
                    parent.out.println("no topics in " + dir);
                    long others = othersThanWeirs(dir);
                    if (others > 0) {
                        // The log skips what is not a topic without a word; say why the list is
                        // empty when the directory is not empty (such as a mistyped path).
                        System.err.println(
                                "weir log topics: note: "
                                        + dir
                                        + " holds no topic but "
                                        + others
                                        + " other entr"
                                        + (others == 1 ? "y" : "ies")
                                        + "; is it a Weir log directory?");
                    }
                }
            }
            return 0;
        }
    }

    /** Entries of {@code dir} that are not Weir's own hidden ones (such as {@code .lock}). */
    private static long othersThanWeirs(Path dir) {
        try (Stream<Path> entries = Files.list(dir)) {
            return entries.filter(p -> !p.getFileName().toString().startsWith(".")).count();
        } catch (IOException | java.io.UncheckedIOException e) {
            return 0; // only a note: say nothing rather than fail the listing
        }
    }

    /**
     * Standard input cut into records at line feeds, as bytes: a carriage return just before a line
     * feed is dropped, any other byte kept; the last record needs no line feed.
     */
    static final class Lines implements AutoCloseable {
        private final InputStream in;
        private final byte[] buffer = new byte[64 * 1024];
        private int position;
        private int limit;
        private long consumed;

        Lines(InputStream in) {
            this.in = in;
        }

        /** The next record, or null at the end of the input. */
        byte[] next() throws IOException {
            byte[] pending = null; // bytes of the record from earlier buffers
            int pendingLength = 0;
            while (true) {
                if (position == limit) {
                    int read = in.read(buffer);
                    if (read < 0) {
                        return pending == null ? null : Arrays.copyOf(pending, pendingLength);
                    }
                    position = 0;
                    limit = read;
                }
                int start = position;
                int end = start;
                while (end < limit && buffer[end] != '\n') {
                    end++;
                }
                int length = end - start;
                if (pending == null) {
                    pending = new byte[Math.max(length, 16)];
                } else if (pendingLength + length > pending.length) {
                    pending =
                            Arrays.copyOf(
                                    pending, Math.max(pendingLength + length, 2 * pending.length));
                }
                System.arraycopy(buffer, start, pending, pendingLength, length);
                pendingLength += length;
                consumed += length;
                position = end;
                if (end < limit) { // a line feed ends the record
                    position++;
                    consumed++;
                    if (pendingLength > 0 && pending[pendingLength - 1] == '\r') {
                        pendingLength--;
                    }
                    return Arrays.copyOf(pending, pendingLength);
                }
            }
        }

        /** Bytes of input consumed so far, line ends included. */
        long consumed() {
            return consumed;
        }

        @Override
        public void close() throws IOException {
            in.close();
        }
    }
}
