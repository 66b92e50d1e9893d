package dev.weir.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.api.Guarantee;
import dev.weir.api.JobFailedException;
import dev.weir.api.JobListener;
import dev.weir.api.JobResult;
import dev.weir.api.Pipeline;
import dev.weir.api.RestartStrategy;
import dev.weir.api.checkpoint.CheckpointConfig;
import dev.weir.api.checkpoint.CheckpointStats;
import dev.weir.api.sink.Sink;
import dev.weir.api.source.Sources;
import dev.weir.api.testing.FaultPoint;
import dev.weir.api.testing.Faults;
import dev.weir.sink.ExactlyOnceSinkConformance;
import dev.weir.testing.KeyedCountJob;
import dev.weir.testing.KeyedCountJob.Update;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The PostgreSQL sinks when the database misbehaves or is misconfigured: a killed session, a server
 * that restarts or is down, values that look like SQL, and each configuration mistake with a
 * message that names its fix.
 */
class PostgresSinkFailuresTest {
    static final int N = ExactlyOnceSinkConformance.N;
    final EmbeddedPostgres shared = TestPostgres.shared();
    @TempDir Path dir;

    @AfterEach
    void disarm() {
        Faults.disarm();
    }

    static String textTable(EmbeddedPostgres server) throws SQLException {
        String table = TestPostgres.freshName("f");
        TestPostgres.execute(server, "CREATE TABLE " + table + " (v text NOT NULL)");
        return table;
    }

    static PostgresTwoPhaseCommitSink<String> twoPhase(PostgresConnectionConfig db, String table) {
        return PostgresTwoPhaseCommitSink.into(
                        db, TableMapping.<String>of(table, List.of("v"), v -> new Object[] {v}))
                .batchSize(100)
                .transactionIdPrefix("weir:" + table);
    }

    Pipeline numbersJob(Sink<String> sink, JobListener listener, RestartStrategy restarts) {
        Pipeline pipeline =
                Pipeline.create("pg-failures")
                        .parallelism(2)
                        .checkpointing(
                                CheckpointConfig.exactlyOnce(
                                        Duration.ofMillis(20), dir.resolve("chk")))
                        .restartStrategy(restarts)
                        .listener(listener);
        pipeline.source("numbers", Sources.sequence(1, N, 2, 20_000))
                .map(n -> Long.toString(n))
                .sink("out", sink)
                .parallelism(2);
        return pipeline;
    }

    /** Calls {@code action} once, when checkpoint {@code n} of the job has completed. */
    static JobListener atCheckpoint(long n, ThrowingRunnable action) {
        AtomicInteger completed = new AtomicInteger();
        return new JobListener() {
            @Override
            public void onCheckpointComplete(CheckpointStats stats) {
                if (completed.incrementAndGet() == n) {
                    try {
                        action.run();
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }
            }
        };
    }

    /**
     * Terminates, when checkpoint 3 completes, every session whose application name starts with
     * {@code prefix}; counts them into {@code terminated}.
     */
    static JobListener terminateSessionsAtCheckpoint3(String prefix, AtomicInteger terminated) {
        return atCheckpoint(
                3,
                () ->
                        terminated.set(
                                TestPostgres.query(
                                                TestPostgres.shared(),
                                                "SELECT pg_terminate_backend(pid) FROM"
                                                        + " pg_stat_activity WHERE"
                                                        + " starts_with(application_name, '"
                                                        + prefix
                                                        + "')")
                                        .size()));
    }

    interface ThrowingRunnable {
        void run() throws Exception;
    }

    @Test
    void terminatingTheSinksSessionsMidTransactionLosesNothing() throws Exception {
        String table = textTable(shared);
        AtomicInteger terminated = new AtomicInteger();
        JobListener killer = terminateSessionsAtCheckpoint3("weir:" + table + ":", terminated);
        JobResult result =
                numbersJob(
                                twoPhase(TestPostgres.config(shared), table),
                                killer,
                                RestartStrategy.fixedDelay(5, Duration.ZERO))
                        .run();

        assertThat(terminated.get()).as("sessions terminated").isPositive();
        assertThat(result.restarts()).as("the lost transaction failed the task").isPositive();
        ExactlyOnceSinkConformance.assertExactlyOnce(
                TestPostgres.query(shared, "SELECT v FROM " + table));
        assertThat(TestPostgres.prepared(shared, "weir:" + table)).isEmpty();
    }

    @Test
    void anUpsertWhoseSessionWasTerminatedIsRetriedOnANewConnectionWithoutARestart()
            throws Exception {
        String table = TestPostgres.freshName("ups_kill");
        TestPostgres.execute(shared, "CREATE TABLE " + table + " (v text PRIMARY KEY, n int)");
        AtomicInteger terminated = new AtomicInteger();
        JobListener killer = terminateSessionsAtCheckpoint3("weir:pg-failures:out:", terminated);
        PostgresUpsertSink<String> sink =
                PostgresUpsertSink.into(
                        TestPostgres.config(shared),
                        TableMapping.<String>of(table, List.of("v", "n"), v -> new Object[] {v, 1})
                                .key("v"));
        JobResult result = numbersJob(sink, killer, RestartStrategy.none()).run();

        assertThat(terminated.get()).as("sessions terminated").isPositive();
        assertThat(result.restarts()).as("the upsert was retried, not the job").isZero();
        ExactlyOnceSinkConformance.assertExactlyOnce(
                TestPostgres.query(shared, "SELECT v FROM " + table));
    }

    static int freePort() throws Exception {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    @Test
    void aServerRestartWhileTheJobRunsIsRiddenOut() throws Exception {
        int port = freePort();
        Path data = dir.resolve("pgdata");
        AtomicReference<EmbeddedPostgres> server =
                new AtomicReference<>(TestPostgres.startOwn(data, port, true));
        try {
            String table = textTable(server.get());
            List<Thread> restarter = new ArrayList<>();
            JobListener restart =
                    atCheckpoint(
                            3,
                            () -> {
                                Thread thread =
                                        new Thread(
                                                () -> {
                                                    try {
                                                        server.get().close();
                                                        server.set(
                                                                TestPostgres.startOwn(
                                                                        data, port, true));
                                                    } catch (Exception e) {
                                                        throw new IllegalStateException(e);
                                                    }
                                                });
                                thread.start();
                                restarter.add(thread);
                            });
            JobResult result =
                    numbersJob(
                                    twoPhase(TestPostgres.config(server.get()), table),
                                    restart,
                                    RestartStrategy.fixedDelay(20, Duration.ofMillis(100)))
                            .run();
            restarter.get(0).join();

            assertThat(result.restarts()).as("the restart cut the sink's sessions").isPositive();
            ExactlyOnceSinkConformance.assertExactlyOnce(
                    TestPostgres.query(server.get(), "SELECT v FROM " + table));
            assertThat(TestPostgres.prepared(server.get(), "weir:" + table)).isEmpty();
        } finally {
            server.get().close();
        }
    }

    @Test
    void aServerDownLongerThanTheRetriesFailsTheJobClearlyAndTheResumedJobLosesNothing()
            throws Exception {
        int port = freePort();
        Path data = dir.resolve("pgdata");
        EmbeddedPostgres server = TestPostgres.startOwn(data, port, true);
        String table = textTable(server);
        PostgresConnectionConfig db = TestPostgres.config(server).retries(2, Duration.ofMillis(10));
        EmbeddedPostgres stopped = server;
        Pipeline first =
                numbersJob(
                        twoPhase(db, table),
                        atCheckpoint(3, stopped::close),
                        RestartStrategy.fixedDelay(1, Duration.ZERO));
        assertThatThrownBy(first::run)
                .isInstanceOf(JobFailedException.class)
                .hasStackTraceContaining("after 2 attempts")
                .hasStackTraceContaining("start the PostgreSQL server or fix the host and port");

        server = TestPostgres.startOwn(data, port, true);
        try {
            numbersJob(twoPhase(db, table), new JobListener() {}, RestartStrategy.none()).run();
            ExactlyOnceSinkConformance.assertExactlyOnce(
                    TestPostgres.query(server, "SELECT v FROM " + table));
            assertThat(TestPostgres.prepared(server, "weir:" + table)).isEmpty();
        } finally {
            server.close();
        }
    }

    static final List<String> SQL_LOOKING =
            List.of(
                    "'); DROP TABLE students; --",
                    "' OR '1'='1",
                    "$$; DELETE FROM pg_class; $$",
                    "\\'; COMMIT PREPARED 'x",
                    "%_%",
                    "\"quoted\"",
                    "null",
                    "Ünïcödé ☃",
                    "");

    @Test
    void valuesThatLookLikeSqlAreStoredVerbatimThroughBoundParameters() throws Exception {
        String table = textTable(shared);
        String keyed = TestPostgres.freshName("keyed");
        TestPostgres.execute(shared, "CREATE TABLE " + keyed + " (k text PRIMARY KEY, n int)");
        Pipeline pipeline =
                Pipeline.create("sql-looking")
                        .checkpointing(
                                CheckpointConfig.exactlyOnce(
                                        Duration.ofMillis(50), dir.resolve("chk")));
        var values = pipeline.source("values", Sources.collection(SQL_LOOKING));
        values.sink("tpc", twoPhase(TestPostgres.config(shared), table));
        values.sink(
                "upsert",
                PostgresUpsertSink.into(
                        TestPostgres.config(shared),
                        TableMapping.<String>of(
                                        keyed, List.of("k", "n"), v -> new Object[] {v, v.length()})
                                .key("k")));
        pipeline.run();

        assertThat(TestPostgres.query(shared, "SELECT v FROM " + table))
                .containsExactlyInAnyOrderElementsOf(SQL_LOOKING);
        assertThat(TestPostgres.query(shared, "SELECT k FROM " + keyed))
                .containsExactlyInAnyOrderElementsOf(SQL_LOOKING);
    }

    @ParameterizedTest(name = "failure at {0}")
    @ValueSource(strings = {"barrier.aligned", "sink.after-precommit", "source.after-poll"})
    void keyedRunningCountsUpsertedAfterFailuresEqualAFailureFreeRun(String point)
            throws Exception {
        long n = 30_000;
        long keys = 20;
        String table = TestPostgres.freshName("counts");
        TestPostgres.execute(
                shared,
                "CREATE TABLE " + table + " (k bigint PRIMARY KEY, count bigint, sum bigint)");
        Faults.throwAt(FaultPoint.of(point), 3);
        Pipeline pipeline =
                Pipeline.create("pg-counts-" + table)
                        .parallelism(2)
                        .checkpointing(
                                CheckpointConfig.exactlyOnce(
                                        Duration.ofMillis(10), dir.resolve("chk")))
                        .restartStrategy(RestartStrategy.fixedDelay(3, Duration.ZERO));
        PostgresUpsertSink<Update> sink =
                PostgresUpsertSink.into(
                        TestPostgres.config(shared),
                        TableMapping.<Update>of(
                                        table,
                                        List.of("k", "count", "sum"),
                                        u -> new Object[] {u.key(), u.count(), u.sum()})
                                .key("k"));
        KeyedCountJob.apply(pipeline.source("numbers", Sources.sequence(1, n, 2, 100_000)), keys)
                .sink("table", sink);
        assertThat(pipeline.guarantee().guarantee()).isEqualTo(Guarantee.EXACTLY_ONCE);

        JobResult result = pipeline.run();

        assertThat(result.restarts()).isPositive();
        List<Update> rows = new ArrayList<>();
        for (String row :
                TestPostgres.query(
                        shared, "SELECT k || ',' || count || ',' || sum FROM " + table)) {
            rows.add(Update.parse(row));
        }
        assertThat(rows).hasSize((int) keys);
        assertThat(KeyedCountJob.check(rows, n, keys).problems()).isEmpty();
        assertThat(
                        TestPostgres.query(
                                shared,
                                "SELECT checkpoint_id FROM weir_sink_progress WHERE job ="
                                        + " 'pg-counts-"
                                        + table
                                        + "'"))
                .as("each subtask stored its checkpoint id with its rows")
                .hasSize(2)
                .allSatisfy(id -> assertThat(Long.parseLong(id)).isPositive());
    }

    @Test
    void anUpsertSinkWhoseReplaysMayDifferIsAtLeastOnceAndSaysWhy() {
        Pipeline pipeline =
                Pipeline.create("clock")
                        .checkpointing(
                                CheckpointConfig.exactlyOnce(
                                        Duration.ofSeconds(1), dir.resolve("chk")));
        pipeline.source("numbers", Sources.sequence(1, 10))
                .sink(
                        "rows",
                        PostgresUpsertSink.into(
                                        TestPostgres.config(shared),
                                        TableMapping.<Long>of(
                                                        "t",
                                                        List.of("k", "at"),
                                                        k -> new Object[] {k, System.nanoTime()})
                                                .key("k"))
                                .replaysWriteIdenticalValues(false));
        assertThat(pipeline.guarantee().describe())
                .startsWith("end-to-end guarantee: AT_LEAST_ONCE (limited by sink 'rows'")
                .contains("replays may write different values");
    }

    // ---- configuration mistakes: each fails at once (no restarts) with the fix ----

    /** Runs a one-record job into {@code sink} with restarts allowed; returns the failure. */
    JobFailedException failureOf(Sink<String> sink) throws InterruptedException {
        Pipeline pipeline =
                Pipeline.create("mistake")
                        .checkpointing(
                                CheckpointConfig.exactlyOnce(
                                        Duration.ofMillis(50), dir.resolve("chk")))
                        .restartStrategy(RestartStrategy.fixedDelay(100, Duration.ofMillis(50)));
        pipeline.source("values", Sources.collection(List.of("a"))).sink("out", sink);
        try {
            pipeline.run();
        } catch (JobFailedException e) {
            return e;
        }
        throw new AssertionError("the job should have failed");
    }

    @Test
    void preparedTransactionsDisabledOnTheServerIsNamedWithTheFix() throws Exception {
        EmbeddedPostgres plain = TestPostgres.startOwn(dir.resolve("plain"), freePort(), false);
        try {
            String table = textTable(plain);
            assertThat(failureOf(twoPhase(TestPostgres.config(plain), table)))
                    .hasStackTraceContaining("max_prepared_transactions = 0")
                    .hasStackTraceContaining(
                            "set max_prepared_transactions to at least twice the sink's"
                                    + " parallelism in postgresql.conf");
        } finally {
            plain.close();
        }
    }

    @Test
    void aMissingTableIsNamedWithTheFix() throws Exception {
        assertThat(failureOf(twoPhase(TestPostgres.config(shared), "no_such_table")))
                .hasStackTraceContaining("table 'no_such_table' does not exist")
                .hasStackTraceContaining("CREATE TABLE no_such_table (v <type>)");
    }

    @Test
    void aMissingColumnIsNamedWithTheFix() throws Exception {
        String table = TestPostgres.freshName("cols");
        TestPostgres.execute(shared, "CREATE TABLE " + table + " (v text)");
        Sink<String> sink =
                PostgresTwoPhaseCommitSink.into(
                        TestPostgres.config(shared),
                        TableMapping.<String>of(
                                table, List.of("v", "extra"), v -> new Object[] {v, 1}));
        assertThat(failureOf(sink))
                .hasStackTraceContaining("has no column extra (it has [v])")
                .hasStackTraceContaining("ALTER TABLE " + table + " ADD COLUMN extra");
    }

    @Test
    void missingPrivilegesAreNamedWithTheGrant() throws Exception {
        String table = textTable(shared);
        String role = TestPostgres.freshName("reader");
        TestPostgres.execute(shared, "CREATE ROLE " + role + " LOGIN PASSWORD 'secret'");
        TestPostgres.execute(shared, "GRANT SELECT ON " + table + " TO " + role);
        PostgresConnectionConfig asReader =
                PostgresConnectionConfig.of(shared.getJdbcUrl(role, "postgres"))
                        .credentials(role, "secret");
        assertThat(failureOf(twoPhase(asReader, table)))
                .hasStackTraceContaining("user " + role + " lacks the INSERT privilege")
                .hasStackTraceContaining("GRANT INSERT ON " + table + " TO " + role);
    }

    @Test
    void anUpsertTableWithoutAUniqueKeyIsNamedWithTheFix() throws Exception {
        String table = TestPostgres.freshName("nokey");
        TestPostgres.execute(shared, "CREATE TABLE " + table + " (k text, n int)");
        Sink<String> sink =
                PostgresUpsertSink.into(
                        TestPostgres.config(shared),
                        TableMapping.<String>of(table, List.of("k", "n"), v -> new Object[] {v, 1})
                                .key("k"));
        assertThat(failureOf(sink))
                .hasStackTraceContaining("has no primary key or unique index on [k]")
                .hasStackTraceContaining("ALTER TABLE " + table + " ADD PRIMARY KEY (k)");
    }

    @Test
    void anUnreachableServerIsNamedWithTheFix() throws Exception {
        int port = freePort();
        PostgresConnectionConfig nowhere =
                PostgresConnectionConfig.of("jdbc:postgresql://127.0.0.1:" + port + "/postgres")
                        .retries(2, Duration.ofMillis(10));
        Pipeline pipeline =
                Pipeline.create("unreachable")
                        .checkpointing(
                                CheckpointConfig.exactlyOnce(
                                        Duration.ofMillis(50), dir.resolve("chk")));
        pipeline.source("values", Sources.collection(List.of("a")))
                .sink("out", twoPhase(nowhere, "t"));
        assertThatThrownBy(pipeline::run)
                .hasStackTraceContaining(
                        "cannot connect to jdbc:postgresql://127.0.0.1:" + port + "/postgres")
                .hasStackTraceContaining("after 2 attempts")
                .hasStackTraceContaining("start the PostgreSQL server or fix the host and port");
    }
}
