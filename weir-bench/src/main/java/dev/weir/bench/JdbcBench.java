package dev.weir.bench;

import dev.weir.api.Pipeline;
import dev.weir.api.checkpoint.CheckpointConfig;
import dev.weir.api.source.Sources;
import dev.weir.jdbc.PostgresConnectionConfig;
import dev.weir.jdbc.PostgresTwoPhaseCommitSink;
import dev.weir.jdbc.TableMapping;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Rows/s of the two-phase-commit PostgreSQL sink (a Weir job: 1..N → row → sink, exactly-once
 * checkpoints) against a plain batched autocommit insert of the same rows by as many connections,
 * in the same run against the same real PostgreSQL (started from Maven), alternating. Prints one
 * line per run and a last line with the medians and their ratio.
 */
@Command(
        name = "jdbc",
        description =
                "Two-phase-commit PostgreSQL sink vs plain batched autocommit inserts, rows/s.")
public final class JdbcBench implements Callable<Integer> {
    @Option(names = "--n", description = "Rows per run (default ${DEFAULT-VALUE}).")
    long n = 1_000_000;

    @Option(names = "--p", description = "Sink subtasks and insert connections (default 1).")
    int p = 1;

    @Option(names = "--batch", description = "Rows per batch (default ${DEFAULT-VALUE}).")
    int batch = 1000;

    @Option(
            names = "--interval-ms",
            description = "Checkpoint interval (default ${DEFAULT-VALUE}).")
    long intervalMs = 1000;

    @Option(names = "--runs", description = "Runs of each (default ${DEFAULT-VALUE}).")
    int runs = 3;

    @Override
    public Integer call() throws Exception {
        Path data = Files.createTempDirectory("weir-jdbc-bench-");
        try (EmbeddedPostgres server =
                EmbeddedPostgres.builder()
                        .setServerConfig("max_prepared_transactions", "16")
                        .setServerConfig("synchronous_commit", "on")
                        .start()) {
            String url = server.getJdbcUrl("postgres", "postgres");
            execute(url, "CREATE TABLE bench (id bigint NOT NULL, v text NOT NULL)");
            double[] weir = new double[runs];
            double[] plain = new double[runs];
            for (int run = 0; run < runs; run++) {
                execute(url, "TRUNCATE bench");
                plain[run] = plainInserts(url);
                print("plain-autocommit", run, plain[run]);
                execute(url, "TRUNCATE bench");
                weir[run] = weirJob(url, data.resolve("chk-" + run));
                print("weir-2pc", run, weir[run]);
            }
            double weirMedian = CompareBench.median(weir);
            double plainMedian = CompareBench.median(plain);
            System.out.printf(
                    Locale.ROOT,
                    "engine=weir job=jdbc-2pc N=%d P=%d batch=%d interval_ms=%d runs=%d"
                            + " weir_rows_per_s=%.0f plain_rows_per_s=%.0f ratio=%.2f%n",
                    n,
                    p,
                    batch,
                    intervalMs,
                    runs,
                    weirMedian,
                    plainMedian,
                    weirMedian / plainMedian);
        }
        return 0;
    }

    private void print(String what, int run, double rowsPerSecond) {
        System.out.printf(
                Locale.ROOT,
                "run=%d %s N=%d P=%d rows_per_s=%.0f%n",
                run,
                what,
                n,
                p,
                rowsPerSecond);
    }

    /** P connections in autocommit mode, each inserting its share in batches of --batch rows. */
    private double plainInserts(String url) throws Exception {
        List<Thread> threads = new ArrayList<>();
        List<Exception> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
        long start = System.nanoTime();
        for (int i = 0; i < p; i++) {
            int subtask = i;
            Thread thread =
                    new Thread(
                            () -> {
                                try (Connection connection = connect(url);
                                        PreparedStatement insert =
                                                connection.prepareStatement(
                                                        "INSERT INTO bench (id, v) VALUES (?, ?)")) {
                                    connection.setAutoCommit(true);
                                    int batched = 0;
                                    for (long id = 1 + subtask; id <= n; id += p) {
                                        insert.setLong(1, id);
                                        insert.setString(2, "row-" + id);
                                        insert.addBatch();
                                        if (++batched == batch) {
                                            insert.executeBatch();
                                            batched = 0;
                                        }
                                    }
                                    if (batched > 0) {
                                        insert.executeBatch();
                                    }
                                } catch (Exception e) {
                                    failures.add(e);
                                }
                            });
            thread.start();
            threads.add(thread);
        }
        for (Thread thread : threads) {
            thread.join();
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        if (!failures.isEmpty()) {
            throw failures.get(0);
        }
        check(url);
        return n / seconds;
    }

    private double weirJob(String url, Path checkpoints) throws Exception {
        Pipeline pipeline =
                Pipeline.create("jdbc-bench")
                        .parallelism(p)
                        .checkpointing(
                                CheckpointConfig.exactlyOnce(
                                        Duration.ofMillis(intervalMs), checkpoints));
        pipeline.source("numbers", Sources.sequence(1, n))
                .sink(
                        "bench",
                        PostgresTwoPhaseCommitSink.into(
                                        PostgresConnectionConfig.of(url)
                                                .credentials("postgres", "postgres"),
                                        TableMapping.<Long>of(
                                                "bench",
                                                List.of("id", "v"),
                                                id -> new Object[] {id, "row-" + id}))
                                .batchSize(batch));
        long start = System.nanoTime();
        pipeline.run();
        double seconds = (System.nanoTime() - start) / 1e9;
        check(url);
        return n / seconds;
    }

    /** Both sides must have written every row once. */
    private void check(String url) throws Exception {
        try (Connection connection = connect(url);
                Statement statement = connection.createStatement();
                ResultSet rs =
                        statement.executeQuery(
                                "SELECT count(*), count(DISTINCT id), sum(id) FROM bench")) {
            rs.next();
            if (rs.getLong(1) != n || rs.getLong(2) != n || rs.getLong(3) != n * (n + 1) / 2) {
                throw new IllegalStateException(
                        "bench table holds "
                                + rs.getLong(1)
                                + " rows, "
                                + rs.getLong(2)
                                + " distinct; expected "
                                + n);
            }
        }
    }

    private static Connection connect(String url) throws Exception {
        Properties props = new Properties();
        props.setProperty("user", "postgres");
        props.setProperty("password", "postgres");
        props.setProperty("reWriteBatchedInserts", "true");
        return DriverManager.getConnection(url, props);
    }

    private static void execute(String url, String sql) throws Exception {
        try (Connection connection = connect(url);
                Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }
}
