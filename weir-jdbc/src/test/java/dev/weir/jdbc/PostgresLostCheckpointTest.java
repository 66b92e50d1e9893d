package dev.weir.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.api.JobFailedException;
import dev.weir.api.Pipeline;
import dev.weir.api.RestartStrategy;
import dev.weir.api.UnrecoverableException;
import dev.weir.api.checkpoint.CheckpointConfig;
import dev.weir.api.sink.Sink;
import dev.weir.api.sink.SinkContext;
import dev.weir.api.sink.TransactionalWriter;
import dev.weir.api.source.Sources;
import dev.weir.api.testing.FaultPoint;
import dev.weir.api.testing.Faults;
import dev.weir.sink.ExactlyOnceSinkConformance;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A checkpoint that completed, whose commits ran, and whose manifest was then lost: the job resumes
 * from the older checkpoint, and replaying from there would write the lost checkpoint's output a
 * second time (invariant 8 of docs/design/001-checkpoints.md: no silent fallback). The
 * two-phase-commit sink refuses to run instead, and a normal crash, a lost checkpoint whose commits
 * never ran, and a fresh start by request go on as before.
 */
class PostgresLostCheckpointTest {
    static final int N = ExactlyOnceSinkConformance.N;
    final EmbeddedPostgres server = TestPostgres.shared();
    @TempDir Path dir;
    String table;
    String prefix;

    @BeforeEach
    void createTable() throws SQLException {
        table = TestPostgres.freshName("lost");
        prefix = "weir:" + table;
        TestPostgres.execute(server, "CREATE TABLE " + table + " (v text NOT NULL)");
    }

    @AfterEach
    void disarm() {
        Faults.disarm();
    }

    PostgresTwoPhaseCommitSink<String> twoPhase() {
        return PostgresTwoPhaseCommitSink.into(
                        TestPostgres.config(server),
                        TableMapping.<String>of(table, List.of("v"), v -> new Object[] {v}))
                .batchSize(100)
                .transactionIdPrefix(prefix);
    }

    /**
     * Numbers 1..N as text into {@code sink} with {@code sinkParallelism} subtasks; restarts
     * allowed, so a refusal shows that it fails the job at once.
     */
    void run(Sink<String> sink, int sinkParallelism, String resume) throws Exception {
        run(sink, sinkParallelism, resume, RestartStrategy.fixedDelay(3, Duration.ZERO));
    }

    void run(Sink<String> sink, int sinkParallelism, String resume, RestartStrategy restarts)
            throws Exception {
        Pipeline pipeline =
                Pipeline.create("lost-" + table)
                        .parallelism(2)
                        .checkpointing(
                                CheckpointConfig.exactlyOnce(
                                                Duration.ofMillis(20), dir.resolve("chk"))
                                        .withResume(resume))
                        .restartStrategy(restarts);
        pipeline.source("numbers", Sources.sequence(1, N, 2, 25_000))
                .map(n -> Long.toString(n))
                .sink("out", sink)
                .parallelism(sinkParallelism);
        pipeline.run();
    }

    /** Runs until the {@code commit}-th commit has run, then fails the job (no restart). */
    void runUntilCommit(Sink<String> sink, int sinkParallelism, long commit) {
        Faults.throwAt(FaultPoint.of("sink.after-commit"), commit);
        assertThatThrownBy(() -> run(sink, sinkParallelism, "latest", RestartStrategy.none()))
                .isInstanceOf(JobFailedException.class);
        Faults.disarm();
    }

    /** The newest checkpoint directory with a manifest. */
    Path newestComplete() throws Exception {
        try (Stream<Path> dirs = Files.list(dir.resolve("chk"))) {
            return dirs.filter(d -> Files.exists(d.resolve("_manifest")))
                    .max(Path::compareTo)
                    .orElseThrow();
        }
    }

    static long idOf(Path checkpoint) {
        String name = checkpoint.getFileName().toString();
        return Long.parseLong(name.substring(name.indexOf('-') + 1));
    }

    List<String> rows() throws SQLException {
        return TestPostgres.query(server, "SELECT v FROM " + table);
    }

    List<String> progressIds() throws SQLException {
        return TestPostgres.query(
                server,
                "SELECT checkpoint_id FROM weir_2pc_progress WHERE transaction_prefix = '"
                        + prefix
                        + "'");
    }

    static void assertNoDuplicates(List<String> rows) {
        assertThat(new HashSet<>(rows)).as("distinct rows").hasSameSizeAs(rows);
    }

    @ParameterizedTest(name = "sink parallelism {0}, then {1}")
    @CsvSource({"3, 3", "3, 2", "2, 3"})
    void aLostManifestWhoseCommitsRanIsRefusedAndPuttingItBackCompletesExactlyOnce(
            int before, int after) throws Exception {
        runUntilCommit(twoPhase(), before, 4);
        Path lost = newestComplete();
        long lostId = idOf(lost);
        assertThat(progressIds())
                .as("the lost checkpoint's commits ran")
                .contains(Long.toString(lostId));
        byte[] manifest = Files.readAllBytes(lost.resolve("_manifest"));
        Files.delete(lost.resolve("_manifest"));
        List<String> before1 = rows();

        assertThatThrownBy(() -> run(twoPhase(), after, "latest"))
                .isInstanceOf(JobFailedException.class)
                .satisfies(e -> assertThat(UnrecoverableException.isUnrecoverable(e)).isTrue())
                .hasStackTraceContaining("sink 'out' refuses to run: table " + table)
                .hasStackTraceContaining("output of checkpoint " + lostId)
                .hasStackTraceContaining("Put the lost checkpoint back")
                .hasStackTraceContaining("resume \"none\" after emptying table " + table);
        assertThat(rows()).as("the refused run committed nothing").hasSameSizeAs(before1);
        assertNoDuplicates(rows());

        // The fix: the refused run rolled back none of the lost checkpoint's transactions.
        Files.write(lost.resolve("_manifest"), manifest);
        run(twoPhase(), after, "latest");
        ExactlyOnceSinkConformance.assertExactlyOnce(rows());
        assertThat(TestPostgres.prepared(server, prefix)).isEmpty();
        assertThat(progressIds().size())
                .as("older rows are deleted as newer ones commit")
                .isLessThanOrEqualTo(Math.max(before, after));
    }

    @Test
    void aNormalCrashResumesWithoutARefusal() throws Exception {
        runUntilCommit(twoPhase(), 3, 4);
        run(twoPhase(), 3, "latest");
        ExactlyOnceSinkConformance.assertExactlyOnce(rows());
        assertThat(TestPostgres.prepared(server, prefix)).isEmpty();
    }

    @Test
    void aLostManifestWhoseCommitsNeverRanIsReplayedWithoutARefusal() throws Exception {
        // One sink subtask, failed when checkpoint 3 completed, before its commit ran.
        Faults.throwAt(FaultPoint.of("sink.checkpoint-complete-before-commit"), 3);
        assertThatThrownBy(() -> run(twoPhase(), 1, "latest", RestartStrategy.none()))
                .isInstanceOf(JobFailedException.class);
        Faults.disarm();
        Path lost = newestComplete();
        assertThat(idOf(lost)).isEqualTo(3);
        assertThat(progressIds()).doesNotContain("3");
        assertThat(TestPostgres.prepared(server, prefix)).contains(prefix + ":0:3");
        Files.delete(lost.resolve("_manifest"));

        run(twoPhase(), 1, "latest");
        ExactlyOnceSinkConformance.assertExactlyOnce(rows());
        assertThat(TestPostgres.prepared(server, prefix)).isEmpty();
    }

    @Test
    void aFreshStartByRequestChecksNothingAndForgetsTheEarlierProgress() throws Exception {
        runUntilCommit(twoPhase(), 3, 4);
        Path lost = newestComplete();
        Files.delete(lost.resolve("_manifest"));
        TestPostgres.execute(server, "DELETE FROM " + table);

        run(twoPhase(), 3, "none");
        ExactlyOnceSinkConformance.assertExactlyOnce(rows());
        assertThat(progressIds())
                .as("rows of this run only, newer than the lost checkpoint")
                .allSatisfy(id -> assertThat(Long.parseLong(id)).isGreaterThan(idOf(lost)));
    }

    @Test
    void anUpsertSinkCannotTellALostCheckpointFromACrashBeforeItCompletedAndResumesBoth()
            throws Exception {
        String keyed = TestPostgres.freshName("lost_upsert");
        TestPostgres.execute(
                server, "CREATE TABLE " + keyed + " (v text PRIMARY KEY, written int NOT NULL)");
        Sink<String> upsert =
                PostgresUpsertSink.into(
                        TestPostgres.config(server),
                        TableMapping.<String>of(
                                        keyed, List.of("v", "written"), v -> new Object[] {v, 1})
                                .key("v"));
        // One sink subtask, failed after its upsert at barrier 3: checkpoint 3 never completes.
        Faults.throwAt(FaultPoint.of("sink.after-precommit"), 3);
        assertThatThrownBy(() -> run(upsert, 1, "latest", RestartStrategy.none()))
                .isInstanceOf(JobFailedException.class);
        Faults.disarm();

        // The upsert runs at the barrier, before the checkpoint completes, so the progress table
        // is newer than the checkpoint a normal restart restores: exactly what a lost manifest
        // leaves too. Refusing on it would refuse every such crash; replays rewrite identical
        // values, so resuming duplicates nothing.
        assertThat(idOf(newestComplete())).isEqualTo(2);
        assertThat(
                        TestPostgres.query(
                                server,
                                "SELECT checkpoint_id FROM weir_sink_progress WHERE job = 'lost-"
                                        + table
                                        + "'"))
                .containsExactly("3");
        run(upsert, 1, "latest");
        ExactlyOnceSinkConformance.assertExactlyOnce(
                TestPostgres.query(server, "SELECT v FROM " + keyed));
    }

    // ---- the refusal rules, on one writer with rows put in place by hand ----

    TransactionalWriter<String, String> writer(int subtask, int parallelism, long restored)
            throws Exception {
        return twoPhase()
                .createTransactionalWriter(
                        new SinkContext() {
                            @Override
                            public String jobName() {
                                return "lost-checkpoint";
                            }

                            @Override
                            public String sinkName() {
                                return "out";
                            }

                            @Override
                            public int subtaskIndex() {
                                return subtask;
                            }

                            @Override
                            public int parallelism() {
                                return parallelism;
                            }

                            @Override
                            public long restoredCheckpointId() {
                                return restored;
                            }
                        });
    }

    void committedProgress(int subtask, long checkpointId) throws SQLException {
        TestPostgres.execute(
                server,
                "INSERT INTO weir_2pc_progress VALUES ('"
                        + prefix
                        + "', "
                        + subtask
                        + ", "
                        + checkpointId
                        + ")");
    }

    /** Recovers writer {@code subtask} of {@code parallelism} that restored {@code restored}. */
    void recover(int subtask, int parallelism, long restored, List<String> committed)
            throws Exception {
        try (TransactionalWriter<String, String> writer = writer(subtask, parallelism, restored)) {
            writer.recoverOwned(committed, subtask, parallelism);
        }
    }

    @Test
    void onlyTheOwnerOfTheOldSubtaskWithNewerOutputRefuses() throws Exception {
        writer(0, 1, -1).close(); // creates the progress table if this test runs first
        committedProgress(3, 9); // old subtask 3 of 4; now owned by 3 % 2 = 1
        committedProgress(0, 8);

        assertThatThrownBy(() -> recover(1, 2, 8, List.of()))
                .isInstanceOf(UnrecoverableException.class)
                .hasMessageContaining("output of checkpoint 9, committed by subtask 3")
                .hasMessageContaining("this run restored checkpoint 8");
        recover(0, 2, 8, List.of());
        recover(1, 2, 9, List.of());
        // A restored committable newer than the checkpoint: a finished task's final transaction.
        recover(1, 2, 8, List.of(prefix + ":3:9"));
    }

    @Test
    void resumingWithoutAnyCheckpointRefusesEarlierOutput() throws Exception {
        writer(0, 1, -1).close();
        committedProgress(1, 4);

        assertThatThrownBy(() -> recover(1, 2, 0, List.of()))
                .isInstanceOf(UnrecoverableException.class)
                .hasMessageContaining("this run asked to resume but found no complete checkpoint");
    }

    @Test
    void aFreshStartChecksNothingAndDeletesTheRowsOfOwnedSubtasks() throws Exception {
        writer(0, 1, -1).close();
        committedProgress(3, 9);
        committedProgress(0, 9);

        recover(1, 2, -1, List.of());
        assertThat(progressIds()).containsExactly("9"); // subtask 0's, owned by the other writer
    }

    @Test
    void aLingeringTransactionOfACheckpointAnotherSubtaskCommittedIsKeptAndRefused()
            throws Exception {
        writer(0, 1, -1).close();
        String lingering = prefix + ":0:9";
        try (Connection connection = server.getPostgresDatabase().getConnection();
                Statement statement = connection.createStatement()) {
            connection.setAutoCommit(false);
            statement.execute("INSERT INTO " + table + " VALUES ('x')");
            statement.execute("PREPARE TRANSACTION '" + lingering + "'");
        }
        committedProgress(1, 9); // the other subtask committed checkpoint 9

        assertThatThrownBy(() -> recover(0, 2, 8, List.of()))
                .isInstanceOf(UnrecoverableException.class)
                .hasMessageContaining("output of checkpoint 9, committed by subtask 1");
        assertThat(TestPostgres.prepared(server, prefix))
                .as("kept for the run that restores checkpoint 9")
                .containsExactly(lingering);

        TestPostgres.execute(server, "ROLLBACK PREPARED '" + lingering + "'");
    }

    @Test
    void aRoleThatMayNotCreateTheProgressTableIsToldTheStatementsToRun() throws Exception {
        String schema = TestPostgres.freshName("s");
        String role = TestPostgres.freshName("writer");
        String data = schema + ".t";
        String progress = schema + ".weir_2pc_progress";
        TestPostgres.execute(server, "CREATE SCHEMA " + schema);
        TestPostgres.execute(server, "CREATE TABLE " + data + " (v text NOT NULL)");
        TestPostgres.execute(server, "CREATE ROLE " + role + " LOGIN PASSWORD 'secret'");
        TestPostgres.execute(server, "GRANT USAGE ON SCHEMA " + schema + " TO " + role);
        TestPostgres.execute(server, "GRANT INSERT ON " + data + " TO " + role);
        PostgresConnectionConfig asWriter =
                PostgresConnectionConfig.of(server.getJdbcUrl(role, "postgres"))
                        .credentials(role, "secret");
        Sink<String> sink =
                PostgresTwoPhaseCommitSink.into(
                                asWriter,
                                TableMapping.<String>of(data, List.of("v"), v -> new Object[] {v}))
                        .transactionIdPrefix(prefix)
                        .progressTable(progress);

        assertThatThrownBy(() -> run(sink, 2, "latest"))
                .hasStackTraceContaining(
                        "the two-phase-commit sink cannot create its progress table " + progress)
                .hasStackTraceContaining(
                        "CREATE TABLE "
                                + progress
                                + " ("
                                + PostgresTwoPhaseCommitSink.PROGRESS_COLUMNS
                                + ")")
                .hasStackTraceContaining(
                        "GRANT SELECT, INSERT, DELETE ON " + progress + " TO " + role);

        // Created once by a privileged user: the sink needs no CREATE privilege any more.
        TestPostgres.execute(
                server,
                "CREATE TABLE "
                        + progress
                        + " ("
                        + PostgresTwoPhaseCommitSink.PROGRESS_COLUMNS
                        + ")");
        TestPostgres.execute(server, "GRANT SELECT, INSERT ON " + progress + " TO " + role);
        assertThatThrownBy(() -> run(sink, 2, "latest"))
                .hasStackTraceContaining(
                        "user "
                                + role
                                + " lacks the DELETE privilege on the two-phase-commit"
                                + " sink's progress table "
                                + progress);
        TestPostgres.execute(server, "GRANT DELETE ON " + progress + " TO " + role);
        run(sink, 2, "latest");
        ExactlyOnceSinkConformance.assertExactlyOnce(
                TestPostgres.query(server, "SELECT v FROM " + data));
    }
}
