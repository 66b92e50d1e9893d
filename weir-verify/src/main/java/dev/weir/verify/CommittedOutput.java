package dev.weir.verify;

import dev.weir.api.codec.Codecs;
import dev.weir.api.log.DurableLog;
import dev.weir.api.log.LogOptions;
import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import java.util.stream.Stream;

/** Reads what a sink committed, as any reader of that system would, and what it left pending. */
final class CommittedOutput {
    /** The log sink's topic. */
    private static final String TOPIC = "updates";

    private CommittedOutput() {}

    /**
     * The lines of the finished files ({@code part-<subtask>-<checkpoint>-<k>}), per subtask in
     * commit order: checkpoint, then k. Files that vanish while listing are skipped (only a
     * concurrent reader meets that, and then it did not see them).
     */
    static List<String> fileLines(Path out) throws IOException {
        List<String> lines = new ArrayList<>();
        if (!Files.isDirectory(out)) {
            return lines;
        }
        List<Path> files;
        try (Stream<Path> entries = Files.list(out)) {
            files =
                    entries.filter(p -> p.getFileName().toString().startsWith("part-"))
                            .sorted(Comparator.comparing(CommittedOutput::order))
                            .toList();
        }
        for (Path file : files) {
            try {
                lines.addAll(Files.readAllLines(file, StandardCharsets.UTF_8));
            } catch (NoSuchFileException e) {
                // renamed or deleted between listing and reading
            }
        }
        return lines;
    }

    private static String order(Path file) {
        String[] parts = file.getFileName().toString().split("[-.]");
        return String.format(
                "%05d-%020d-%09d",
                Long.parseLong(parts[1]), Long.parseLong(parts[2]), Long.parseLong(parts[3]));
    }

    /** Pending and in-progress files (their names start with a dot). */
    static List<String> filePending(Path out) throws IOException {
        if (!Files.isDirectory(out)) {
            return List.of();
        }
        try (Stream<Path> entries = Files.list(out)) {
            return entries.map(p -> p.getFileName().toString())
                    .filter(name -> name.startsWith("."))
                    .toList();
        }
    }

    /**
     * The committed records of the log topic: partition after partition, each in offset order, so
     * two reads of the same log give the same list (a job reading the partitions side by side
     * interleaves them by timing).
     */
    static List<String> logLines(Path log) throws IOException {
        if (!Files.isDirectory(log)) {
            return List.of();
        }
        List<String> lines = new ArrayList<>();
        IOException[] failure = {null};
        try (DurableLog reader = DurableLog.openReadOnly(log, LogOptions.defaults())) {
            if (!reader.hasTopic(TOPIC)) {
                return List.of();
            }
            for (int partition = 0; partition < reader.partitions(TOPIC); partition++) {
                long next = reader.startOffset(TOPIC, partition);
                for (long after;
                        (after =
                                        reader.scan(
                                                TOPIC,
                                                partition,
                                                next,
                                                4096,
                                                (offset, buffer, at, length) -> {
                                                    try {
                                                        lines.add(
                                                                Codecs.STRING.decode(
                                                                        new DataInputStream(
                                                                                new ByteArrayInputStream(
                                                                                        buffer, at,
                                                                                        length))));
                                                    } catch (IOException e) {
                                                        failure[0] = e;
                                                    }
                                                }))
                                > next; ) {
                    next = after;
                }
            }
        }
        if (failure[0] != null) {
            throw failure[0];
        }
        return lines;
    }

    /** Staged transactions of the log sink not yet committed or aborted. */
    static List<String> logPending(Path log) throws IOException {
        Path staging = log.resolve(".staging").resolve("updates");
        if (!Files.isDirectory(staging)) {
            return List.of();
        }
        try (Stream<Path> entries = Files.list(staging)) {
            return entries.map(p -> "staged " + p.getFileName()).toList();
        }
    }

    static Connection connect(String url) throws SQLException {
        Properties props = new Properties();
        props.setProperty("user", "postgres");
        props.setProperty("password", "postgres");
        return DriverManager.getConnection(url, props);
    }

    /** The table's rows as lines, in insertion order. */
    static List<String> postgresLines(String url) throws SQLException {
        List<String> lines = new ArrayList<>();
        try (Connection connection = connect(url);
                Statement statement = connection.createStatement();
                ResultSet rs =
                        statement.executeQuery(
                                "SELECT k || ',' || seq || ',' || count || ',' || sum FROM "
                                        + VerifyJob.TABLE
                                        + " ORDER BY id")) {
            while (rs.next()) {
                lines.add(rs.getString(1));
            }
        }
        return lines;
    }

    /** The job's prepared, uncommitted transactions. */
    static List<String> postgresPending(String url) throws SQLException {
        try (Connection connection = connect(url)) {
            return dev.weir.jdbc.PostgresTwoPhaseCommitSink.preparedTransactions(
                    connection, VerifyJob.PREFIX);
        }
    }
}
