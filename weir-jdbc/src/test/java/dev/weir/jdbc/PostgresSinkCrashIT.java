package dev.weir.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.sink.ExactlyOnceSinkConformance;
import dev.weir.testing.ChildJvm;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * SIGKILL of the Weir child JVM at each named point, then a second run on the same checkpoint
 * directory: the table holds every record once and {@code pg_prepared_xacts} none of the job's
 * transactions. And a PostgreSQL restart between prepare and commit: the prepared transactions
 * survive it and the resumed job commits them.
 */
class PostgresSinkCrashIT {
    static final int N = ExactlyOnceSinkConformance.N;
    @TempDir Path dir;

    int runChild(EmbeddedPostgres server, String fault, String table, String kind)
            throws IOException, InterruptedException {
        Process child =
                ChildJvm.start(
                        PostgresSinkChild.class,
                        fault,
                        dir.resolve("child.log").toFile(),
                        dir.resolve("chk").toString(),
                        server.getJdbcUrl("postgres", "postgres"),
                        table,
                        Integer.toString(N),
                        kind,
                        "weir:" + table);
        assertThat(child.waitFor(120, TimeUnit.SECONDS)).as("child finished").isTrue();
        return child.exitValue();
    }

    static String createTable(EmbeddedPostgres server, String kind) throws Exception {
        String table = TestPostgres.freshName("crash_" + kind);
        TestPostgres.execute(
                server,
                kind.equals("upsert")
                        ? "CREATE TABLE " + table + " (v text PRIMARY KEY, written int)"
                        : "CREATE TABLE " + table + " (v text NOT NULL)");
        return table;
    }

    @ParameterizedTest(name = "{1} sink, killed at {0}")
    @CsvSource({
        "sink.before-precommit:4, 2pc",
        "sink.after-precommit:4, 2pc",
        "checkpoint.manifest-written:2, 2pc",
        "sink.checkpoint-complete-before-commit:4, 2pc",
        "sink.after-commit:3, 2pc",
        "sink.before-precommit:4, upsert",
        "sink.after-precommit:4, upsert",
        "sink.checkpoint-complete-before-commit:4, upsert",
    })
    void sigkillAtASinkPointThenResumeWritesEveryRecordOnce(String fault, String kind)
            throws Exception {
        EmbeddedPostgres server = TestPostgres.shared();
        String table = createTable(server, kind);
        assertThat(runChild(server, fault, table, kind)).as("killed at %s", fault).isEqualTo(137);
        assertThat(runChild(server, null, table, kind))
                .as(Files.readString(dir.resolve("child.log")))
                .isZero();

        ExactlyOnceSinkConformance.assertExactlyOnce(
                TestPostgres.query(server, "SELECT v FROM " + table));
        assertThat(TestPostgres.prepared(server, "weir:" + table)).isEmpty();
    }

    @ParameterizedTest(name = "killed again at {0}")
    @CsvSource({"sink.recommit:1", "sink.before-recover:1"})
    void sigkillDuringRecoveryThenResumeWritesEveryRecordOnce(String fault) throws Exception {
        EmbeddedPostgres server = TestPostgres.shared();
        String table = createTable(server, "2pc");
        assertThat(runChild(server, "sink.checkpoint-complete-before-commit:4", table, "2pc"))
                .isEqualTo(137);
        assertThat(runChild(server, fault, table, "2pc")).isEqualTo(137);
        assertThat(runChild(server, null, table, "2pc")).isZero();

        ExactlyOnceSinkConformance.assertExactlyOnce(
                TestPostgres.query(server, "SELECT v FROM " + table));
        assertThat(TestPostgres.prepared(server, "weir:" + table)).isEmpty();
    }

    @Test
    void preparedTransactionsSurviveAServerRestartBetweenPrepareAndCommit() throws Exception {
        int port;
        try (ServerSocket free = new ServerSocket(0)) {
            port = free.getLocalPort();
        }
        Path data = dir.resolve("pgdata");
        EmbeddedPostgres server = TestPostgres.startOwn(data, port, true);
        String table;
        try {
            table = createTable(server, "2pc");
            // Killed after checkpoint 4 completed, before its transactions were committed.
            assertThat(runChild(server, "sink.checkpoint-complete-before-commit:4", table, "2pc"))
                    .isEqualTo(137);
            assertThat(TestPostgres.prepared(server, "weir:" + table))
                    .as("prepared, not yet committed")
                    .isNotEmpty();
        } finally {
            server.close();
        }
        server = TestPostgres.startOwn(data, port, true);
        try {
            assertThat(TestPostgres.prepared(server, "weir:" + table))
                    .as("prepared transactions survive the server restart")
                    .isNotEmpty();
            assertThat(runChild(server, null, table, "2pc"))
                    .as(Files.readString(dir.resolve("child.log")))
                    .isZero();
            ExactlyOnceSinkConformance.assertExactlyOnce(
                    TestPostgres.query(server, "SELECT v FROM " + table));
            assertThat(TestPostgres.prepared(server, "weir:" + table)).isEmpty();
        } finally {
            server.close();
        }
    }
}
