package dev.weir.verify;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.api.JobHandle;
import dev.weir.api.Pipeline;
import dev.weir.api.RestartStrategy;
import dev.weir.api.checkpoint.CheckpointConfig;
import dev.weir.api.codec.Codecs;
import dev.weir.api.sink.Sink;
import dev.weir.api.source.Sources;
import dev.weir.flink.FlinkRunner;
import dev.weir.flink.cluster.LocalFlinkCluster;
import dev.weir.jdbc.PostgresConnectionConfig;
import dev.weir.jdbc.PostgresTwoPhaseCommitSink;
import dev.weir.jdbc.PostgresUpsertSink;
import dev.weir.jdbc.TableMapping;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Weir's PostgreSQL sinks on a standalone Flink cluster (a JobManager and two TaskManagers, child
 * JVMs) writing into a real PostgreSQL: a TaskManager SIGKILLed mid-run, once rows are committed,
 * and started again leaves every row exactly once with the right running sum — the two-phase-commit
 * sink (one row per record, no prepared transaction left behind) and the upsert sink (one row per
 * record number, rewritten on replay with the same values).
 */
class FlinkPostgresSinksIT {
    static final long N = 12_000;
    static final int KEYS = 4;

    @TempDir static Path temp;
    static EmbeddedPostgres postgres;
    static LocalFlinkCluster cluster;

    @BeforeAll
    static void start() throws Exception {
        postgres =
                EmbeddedPostgres.builder()
                        .setServerConfig("max_prepared_transactions", "20")
                        .start();
        cluster = LocalFlinkCluster.start(temp.resolve("cluster"), 2, Duration.ofMinutes(2));
    }

    @AfterAll
    static void stop() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
        if (postgres != null) {
            postgres.close();
        }
    }

    static String url() {
        return postgres.getJdbcUrl("postgres", "postgres");
    }

    /** One output row: record {@code n} of key {@code k}, and the key's running sum after it. */
    static Object[] row(String line) {
        String[] parts = line.split(",");
        return new Object[] {
            Long.parseLong(parts[0]), Integer.parseInt(parts[1]), Long.parseLong(parts[2])
        };
    }

    /**
     * numbers 1..N (one split, paced) → keyBy(n % 4) → running sum → "n,key,sum" into {@code sink}.
     * Static, so its lambdas capture nothing but serialisable values: they travel to the cluster.
     */
    static Pipeline pipeline(String name, Path checkpoints, Sink<String> sink) {
        Pipeline pipeline =
                Pipeline.create(name)
                        .parallelism(2)
                        .checkpointing(
                                CheckpointConfig.exactlyOnce(Duration.ofMillis(200), checkpoints))
                        .restartStrategy(RestartStrategy.fixedDelay(60, Duration.ofMillis(500)));
        pipeline.source("numbers", Sources.sequence(1, N, 1, 2_000))
                .parallelism(1)
                .keyBy(n -> (int) (n % KEYS))
                .<Long, String>process(
                        "sum",
                        Codecs.LONG,
                        (key, n, sum, out) -> {
                            long next = (sum.value() == null ? 0 : sum.value()) + n;
                            sum.update(next);
                            out.collect(n + "," + key + "," + next);
                        })
                .sink("rows", sink);
        return pipeline;
    }

    /** The rows every run must leave: "n,key,sum" for n = 1..N. */
    static List<String> expected() {
        long[] sums = new long[KEYS];
        List<String> rows = new ArrayList<>();
        for (long n = 1; n <= N; n++) {
            int key = (int) (n % KEYS);
            sums[key] += n;
            rows.add(n + "," + key + "," + sums[key]);
        }
        return rows;
    }

    @Test
    void theTwoPhaseCommitSinkStaysExactlyOnceThroughATaskManagerKill() throws Exception {
        createTable("flink_2pc", "id bigserial PRIMARY KEY, n bigint, k int, sum bigint");
        Sink<String> sink =
                PostgresTwoPhaseCommitSink.into(
                                PostgresConnectionConfig.of(url())
                                        .credentials("postgres", "postgres"),
                                TableMapping.of(
                                        "flink_2pc",
                                        List.of("n", "k", "sum"),
                                        FlinkPostgresSinksIT::row))
                        .transactionIdPrefix("flink-2pc");

        runKillingOneTaskManager(pipeline("flink-2pc", temp.resolve("chk-2pc"), sink), "flink_2pc");

        assertThat(rows("flink_2pc")).isEqualTo(expected());
        assertThat(query("SELECT gid FROM pg_prepared_xacts"))
                .as("prepared transactions left behind")
                .isEmpty();
    }

    @Test
    void theUpsertSinkStaysExactlyOnceThroughATaskManagerKill() throws Exception {
        createTable("flink_upsert", "n bigint PRIMARY KEY, k int, sum bigint");
        Sink<String> sink =
                PostgresUpsertSink.into(
                        PostgresConnectionConfig.of(url()).credentials("postgres", "postgres"),
                        TableMapping.of(
                                        "flink_upsert",
                                        List.of("n", "k", "sum"),
                                        FlinkPostgresSinksIT::row)
                                .key("n"));

        runKillingOneTaskManager(
                pipeline("flink-upsert", temp.resolve("chk-upsert"), sink), "flink_upsert");

        assertThat(rows("flink_upsert")).isEqualTo(expected());
    }

    /**
     * Starts {@code pipeline} on the cluster, SIGKILLs a TaskManager running its tasks once {@code
     * table} has committed rows (and fewer than all), starts it again, and waits for the job.
     */
    private static void runKillingOneTaskManager(Pipeline pipeline, String table) throws Exception {
        JobHandle job = pipeline.start(FlinkRunner.remote("localhost", cluster.restPort()));
        long committed = 0;
        while (committed == 0) {
            assertThat(finishedWithin(job, Duration.ofMillis(100)))
                    .as("the job ended before its first commit")
                    .isFalse();
            committed = Long.parseLong(query("SELECT count(*) FROM " + table).get(0));
        }
        assertThat(committed).isLessThan(N);
        int killed = cluster.killBusyTaskManager(new Random(7));
        cluster.restartTaskManager(killed);

        job.await(Duration.ofMinutes(3));

        String jobs = cluster.rest("/jobs/overview");
        Matcher id =
                Pattern.compile("\"jid\":\"([0-9a-f]+)\",\"name\":\"" + pipeline.name() + "\"")
                        .matcher(jobs);
        assertThat(id.find()).as(jobs).isTrue();
        assertThat(cluster.rest("/jobs/" + id.group(1) + "/exceptions"))
                .as("the kill failed the job once at least")
                .containsPattern("\"entries\":\\[\\{");
    }

    private static boolean finishedWithin(JobHandle job, Duration wait) throws Exception {
        try {
            job.await(wait);
            return true;
        } catch (TimeoutException stillRunning) {
            return false;
        }
    }

    private static void createTable(String table, String columns) throws Exception {
        try (Connection connection = DriverManager.getConnection(url());
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE " + table + " (" + columns + ")");
        }
    }

    /** The table's rows as "n,key,sum", by n; duplicates stay. */
    private static List<String> rows(String table) throws Exception {
        return query("SELECT n || ',' || k || ',' || sum FROM " + table + " ORDER BY n, k, sum");
    }

    private static List<String> query(String sql) throws Exception {
        List<String> values = new ArrayList<>();
        try (Connection connection = DriverManager.getConnection(url());
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(sql)) {
            while (rows.next()) {
                values.add(rows.getString(1));
            }
        }
        return values;
    }
}
