package dev.weir.cli;

import dev.weir.api.log.DurableLog;
import dev.weir.api.log.LogCorruptedException;
import dev.weir.api.log.LogEntry;
import dev.weir.api.log.LogOptions;
import dev.weir.api.log.LogRecord;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code weir log}: the embedded durable log from the command line. */
@Command(
        name = "log",
        description = "Creates, appends to and reads topics of Weir's embedded durable log.",
        subcommands = {
            LogCommand.Create.class,
            LogCommand.Append.class,
            LogCommand.Tail.class,
            LogCommand.Offsets.class
        })
public final class LogCommand implements Callable<Integer> {
    @Option(names = "--dir", description = "Log directory (default ${DEFAULT-VALUE}).")
    Path dir = Path.of("weir-data", "log");

    PrintStream out = System.out;
    PrintStream err = System.err;

    @Override
    public Integer call() {
        new picocli.CommandLine(this).usage(out);
        return 0;
    }

    /**
     * Opens the log for writing: takes the directory's lock, so a second writing process is refused
     * with the holder's PID.
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

    /** Runs {@code command}; a refusal or failure is one line on standard error and status 1. */
    int run(Callable<Integer> command) throws Exception {
        try {
            return command.call();
        } catch (IllegalArgumentException
                | IllegalStateException
                | UncheckedIOException
                | LogCorruptedException e) {
            err.println("weir log: " + e.getMessage());
            return 1;
        }
    }

    /** {@code weir log create TOPIC --partitions N}. */
    @Command(name = "create", description = "Creates a topic (does nothing if it exists alike).")
    static final class Create implements Callable<Integer> {
        @ParentCommand LogCommand parent;

        @Parameters(index = "0", description = "Topic name.")
        String topic;

        @Option(names = "--partitions", description = "Partitions (default ${DEFAULT-VALUE}).")
        int partitions = 1;

        @Override
        public Integer call() throws Exception {
            return parent.run(
                    () -> {
                        try (DurableLog log = parent.open()) {
                            log.createTopic(topic, partitions);
                        }
                        parent.out.println(
                                "topic "
                                        + topic
                                        + " has "
                                        + partitions
                                        + " partition(s) in "
                                        + parent.dir);
                        return 0;
                    });
        }
    }

    /** {@code weir log append TOPIC}: one record per line of standard input. */
    @Command(name = "append", description = "Appends each line of standard input as a record.")
    static final class Append implements Callable<Integer> {
        @ParentCommand LogCommand parent;

        @Parameters(index = "0", description = "Topic name.")
        String topic;

        @Option(names = "--partition", description = "Partition (default ${DEFAULT-VALUE}).")
        int partition;

        @Option(
                names = "--batch",
                description = "Records per fsynced batch (default ${DEFAULT-VALUE}).")
        int batch = 1000;

        @Override
        public Integer call() throws Exception {
            return parent.run(this::append);
        }

        private int append() throws Exception {
            long appended = 0;
            long first = -1;
            try (DurableLog log = parent.open();
                    BufferedReader in =
                            new BufferedReader(
                                    new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
                log.partition(topic, partition); // name, topic and partition checked first
                List<byte[]> records = new ArrayList<>();
                String line;
                while ((line = in.readLine()) != null) {
                    records.add(line.getBytes(StandardCharsets.UTF_8));
                    if (records.size() == batch) {
                        long at = log.append(topic, partition, records);
                        first = first < 0 ? at : first;
                        appended += records.size();
                        records.clear();
                    }
                }
                if (!records.isEmpty()) {
                    long at = log.append(topic, partition, records);
                    first = first < 0 ? at : first;
                    appended += records.size();
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
                            + " like Sources.log).")
    static final class Tail implements Callable<Integer> {
        @ParentCommand LogCommand parent;

        @Parameters(index = "0", description = "Topic name.")
        String topic;

        @Option(names = "--partition", description = "Partition (default ${DEFAULT-VALUE}).")
        int partition;

        @Option(names = "--from", description = "First offset (default: the last 10 offsets).")
        Long from;

        @Option(names = "--max", description = "Most records to print (default ${DEFAULT-VALUE}).")
        int max = 10_000;

        @Option(
                names = "--show-markers",
                description =
                        "Also print transaction markers and records of transactions that did not"
                                + " (yet) commit, each marked.")
        boolean showMarkers;

        @Override
        public Integer call() throws Exception {
            return parent.run(this::tail);
        }

        private int tail() {
            try (DurableLog log = parent.openReadOnly()) {
                long end = log.endOffset(topic, partition);
                long start =
                        from != null ? from : Math.max(log.startOffset(topic, partition), end - 10);
                List<LogRecord> committed = log.read(topic, partition, start, max);
                if (!showMarkers) {
                    for (LogRecord record : committed) {
                        parent.out.println(record.offset() + "\t" + text(record.payload()));
                    }
                    return 0;
                }
                Set<Long> visible = new HashSet<>();
                for (LogRecord record : committed) {
                    visible.add(record.offset());
                }
                for (LogEntry entry : log.readUncommitted(topic, partition, start, max)) {
                    parent.out.println(entry.offset() + "\t" + describe(entry, visible));
                }
            }
            return 0;
        }

        private static String describe(LogEntry entry, Set<Long> committed) {
            return switch (entry.kind()) {
                case DATA -> text(entry.payload());
                case TRANSACTION_DATA ->
                        committed.contains(entry.offset())
                                ? text(entry.payload())
                                : "[uncommitted, transaction "
                                        + entry.transaction()
                                        + "]\t"
                                        + text(entry.payload());
                case BEGIN -> "[BEGIN transaction " + entry.transaction() + "]";
                case COMMIT -> "[COMMIT transaction " + entry.transaction() + "]";
            };
        }

        private static String text(byte[] payload) {
            return new String(payload, StandardCharsets.UTF_8);
        }
    }

    /** {@code weir log offsets TOPIC}: start and end offset of every partition. */
    @Command(name = "offsets", description = "Prints the start and end offset of each partition.")
    static final class Offsets implements Callable<Integer> {
        @ParentCommand LogCommand parent;

        @Parameters(index = "0", description = "Topic name.")
        String topic;

        @Override
        public Integer call() throws Exception {
            return parent.run(this::offsets);
        }

        private int offsets() {
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
}
