package dev.weir.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.api.JobHandle;
import dev.weir.api.JobResult;
import dev.weir.api.Pipeline;
import dev.weir.api.RestartStrategy;
import dev.weir.api.UnrecoverableException;
import dev.weir.api.checkpoint.CheckpointConfig;
import dev.weir.api.checkpoint.CheckpointView;
import dev.weir.api.sink.JobInstance;
import dev.weir.api.sink.SinkContext;
import dev.weir.api.sink.TransactionalWriter;
import dev.weir.api.source.Sources;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two different jobs with the same job and sink names (two copies of one service, each with its own
 * checkpoint directory) share the two-phase-commit sink's default prefix: the second must refuse
 * before it touches the first's prepared transactions or progress rows, and say which jobs, which
 * prefix and the fix. The same job restarted on its directory, and a job started over after its
 * directory was deleted, run as before.
 */
class PostgresTwoPhaseSharedPrefixTest {
    private static final int N = 4_000;
    final EmbeddedPostgres server = TestPostgres.shared();
    @TempDir Path temp;
    String table;
    String name;
    String prefix;

    @BeforeEach
    void createTable() throws SQLException {
        table = TestPostgres.freshName("twins");
        name = "twins-" + table;
        prefix = "weir:" + name + ":out"; // the default prefix
        TestPostgres.execute(server, "CREATE TABLE " + table + " (v text NOT NULL)");
    }

    PostgresTwoPhaseCommitSink<String> sink() {
        return PostgresTwoPhaseCommitSink.into(
                        TestPostgres.config(server),
                        TableMapping.<String>of(table, List.of("v"), v -> new Object[] {v}))
                .batchSize(100);
    }

    /** Numbers 1..N in 2 splits, rate-limited so that the job still runs when wanted. */
    Pipeline job(Path checkpoints, int sinkParallelism, String resume) {
        return job(checkpoints, sinkParallelism, resume, 1_000);
    }

    /**
     * The job at {@code rate} records per second; without checkpointing if {@code checkpoints} is
     * null.
     */
    Pipeline job(Path checkpoints, int sinkParallelism, String resume, long rate) {
        Pipeline pipeline =
                Pipeline.create(name)
                        .parallelism(2)
                        .restartStrategy(RestartStrategy.fixedDelay(3, Duration.ZERO));
        if (checkpoints != null) {
            pipeline.checkpointing(
                    CheckpointConfig.exactlyOnce(Duration.ofMillis(50), checkpoints)
                            .withResume(resume));
        }
        pipeline.source("numbers", Sources.sequence(1, N, 2, rate))
                .map(n -> Long.toString(n))
                .sink("out", sink())
                .parallelism(sinkParallelism);
        return pipeline;
    }

    List<String> rows() throws SQLException {
        return TestPostgres.query(server, "SELECT v FROM " + table);
    }

    void assertEachNumberOnce() throws SQLException {
        assertThat(rows())
                .as("the committed output: each of 1..%d once", N)
                .doesNotHaveDuplicates()
                .containsExactlyInAnyOrderElementsOf(
                        LongStream.rangeClosed(1, N).mapToObj(Long::toString).toList());
    }

    List<String> progressRows() throws SQLException {
        return TestPostgres.query(
                server,
                "SELECT checkpoint_id FROM weir_2pc_progress WHERE transaction_prefix = '"
                        + prefix
                        + "'");
    }

    /** The instance id in the prefix's claim, if any. */
    Optional<String> owner() throws SQLException {
        List<String> claims =
                TestPostgres.query(
                        server,
                        "SELECT transaction_prefix FROM weir_2pc_progress WHERE subtask = -1 AND"
                                + " starts_with(transaction_prefix, '"
                                + prefix
                                + "' || E'\\nowner\\n')");
        assertThat(claims).as("at most one claim").hasSizeLessThanOrEqualTo(1);
        return claims.stream()
                .map(row -> ClaimRow.decode(prefix, row).orElseThrow().instanceId())
                .findFirst();
    }

    /** Starts the job on {@code first}, slowly, and waits until it committed output. */
    JobHandle startAndAwaitOutput(Path first) throws Exception {
        JobHandle running = job(first, 2, "latest", 400).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (rows().isEmpty()) { // committed output (the progress table may not exist yet)
            assertThat(running.isDone()).as("the first job still runs").isFalse();
            assertThat(System.nanoTime()).as("first job committed").isLessThan(deadline);
            LockSupport.parkNanos(20_000_000);
        }
        return running;
    }

    @Test
    void aJobWithoutCheckpointingRefusesAPrefixAnotherJobClaimedAndRollsBackNothingOfIt()
            throws Exception {
        Path first = temp.resolve("first");
        JobHandle running = startAndAwaitOutput(first);
        String instance = CheckpointView.instanceId(first).orElseThrow();

        // The same job, started without checkpointing: no instance id, so it claims nothing; it
        // must still not roll back the running owner's prepared transactions.
        JobHandle twin = job(null, 2, "latest", 400).start();
        assertThatThrownBy(() -> twin.await(Duration.ofSeconds(60)))
                .hasRootCauseInstanceOf(UnrecoverableException.class)
                .rootCause()
                .hasMessageContaining("transaction id prefix '" + prefix + "'")
                .hasMessageContaining("is claimed by another job: job '" + name + "'")
                .hasMessageContaining(first.toAbsolutePath().toString())
                .hasMessageContaining("has no instance id")
                .hasMessageContaining("PostgresTwoPhaseCommitSink.transactionIdPrefix(")
                .hasMessageContaining("enable checkpointing on its checkpoint directory " + first)
                .hasMessageContaining("share the default prefix");
        assertThat(twin.restarts()).as("refused at once, not retried").isZero();
        assertThat(running.isDone()).as("the twin ended while the first job ran").isFalse();

        JobResult result = running.await(Duration.ofSeconds(120));
        assertThat(result.restarts()).as("the twin disturbed none of the first job's").isZero();
        assertEachNumberOnce();
        assertThat(TestPostgres.prepared(server, prefix)).isEmpty();
        assertThat(owner()).hasValue(instance);
        // The owner restores its final checkpoint on its directory: nothing lost, nothing twice.
        assertThat(job(first, 1, "latest").run().restarts()).isZero();
        assertEachNumberOnce();
    }

    @Test
    void aRunningOwnerWhoseDirectoryLooksGoneIsNotTakenOver() throws Exception {
        Path first = temp.resolve("first");
        Path second = temp.resolve("second");
        JobHandle running = startAndAwaitOutput(first);
        String instance = CheckpointView.instanceId(first).orElseThrow();
        // As a twin in another container with the same host name and path sees it: the owner's
        // directory does not hold its instance id.
        Path idFile = first.resolve("_instance-id");
        Path aside = temp.resolve("instance-id-aside");
        Files.move(idFile, aside);
        try {
            JobInstance claimed =
                    ClaimRow.decode(
                                    prefix,
                                    TestPostgres.query(
                                                    server,
                                                    "SELECT transaction_prefix FROM"
                                                            + " weir_2pc_progress WHERE subtask ="
                                                            + " -1 AND starts_with("
                                                            + "transaction_prefix, '"
                                                            + prefix
                                                            + "' || E'\\nowner\\n')")
                                            .get(0))
                            .orElseThrow();
            assertThat(claimed.isGoneFrom(JobInstance.thisHost()))
                    .as("the directory check alone is fooled")
                    .isTrue();
            JobHandle twin = job(second, 2, "latest", 400).start();
            assertThatThrownBy(() -> twin.await(Duration.ofSeconds(60)))
                    .hasRootCauseInstanceOf(UnrecoverableException.class)
                    .rootCause()
                    .hasMessageContaining("transaction id prefix '" + prefix + "'")
                    .hasMessageContaining("session(s) of the prefix are connected")
                    .hasMessageContaining("DELETE FROM weir_2pc_progress WHERE subtask = -1");
            assertThat(twin.restarts()).as("refused at once, not retried").isZero();
            assertThat(running.isDone()).as("the owner still runs").isFalse();
        } finally {
            Files.move(aside, idFile);
        }
        JobResult result = running.await(Duration.ofSeconds(120));
        assertThat(result.restarts()).as("the twin disturbed none of the owner's").isZero();
        assertEachNumberOnce();
        assertThat(TestPostgres.prepared(server, prefix)).isEmpty();
        assertThat(owner()).hasValue(instance);
    }

    @Test
    void aSecondJobWithTheSameNamesOnAnotherCheckpointDirectoryRefusesAndTheFirstRunsOn()
            throws Exception {
        Path first = temp.resolve("first");
        Path second = temp.resolve("second");
        JobHandle running = job(first, 2, "latest").start();
        // Wait until the first job committed output: it then has transactions in flight.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (progressRows().isEmpty()) {
            assertThat(running.isDone()).as("the first job still runs").isFalse();
            assertThat(System.nanoTime()).as("first job committed").isLessThan(deadline);
            LockSupport.parkNanos(20_000_000);
        }
        String instance = CheckpointView.instanceId(first).orElseThrow();
        assertThat(owner()).hasValue(instance);

        JobHandle twin = job(second, 2, "latest").start();
        assertThatThrownBy(() -> twin.await(Duration.ofSeconds(60)))
                .hasRootCauseInstanceOf(UnrecoverableException.class)
                .rootCause()
                .hasMessageContaining("sink 'out' refuses to run")
                .hasMessageContaining("transaction id prefix '" + prefix + "'")
                .hasMessageContaining("is claimed by another job: job '" + name + "'")
                .hasMessageContaining(first.toAbsolutePath().toString())
                .hasMessageContaining(instance)
                .hasMessageContaining(second.toAbsolutePath().toString())
                .hasMessageContaining(CheckpointView.instanceId(second).orElseThrow())
                .hasMessageContaining(" on host " + JobInstance.thisHost())
                .hasMessageContaining("PostgresTwoPhaseCommitSink.transactionIdPrefix(")
                .hasMessageContaining("start it on its checkpoint directory " + first)
                .hasMessageContaining(
                        "DELETE FROM weir_2pc_progress WHERE subtask = -1 AND"
                                + " starts_with(transaction_prefix, '"
                                + prefix
                                + "' || E'\\nowner\\n')");
        assertThat(twin.restarts()).as("refused at once, not retried").isZero();
        assertThat(running.isDone()).as("the twin ended while the first job ran").isFalse();

        JobResult result = running.await(Duration.ofSeconds(120));
        assertThat(result.restarts()).as("the twin disturbed none of the first job's").isZero();
        assertEachNumberOnce();
        assertThat(TestPostgres.prepared(server, prefix)).isEmpty();
        assertThat(owner()).hasValue(instance);

        // The same job started again on its own directory, at another parallelism, is its owner:
        // it restores its final checkpoint and writes nothing twice.
        JobResult again = job(first, 1, "latest").run();
        assertThat(again.restarts()).isZero();
        assertEachNumberOnce();
        assertThat(owner()).hasValue(instance);

        // Without the claim (released by hand), the twin refuses for the first job's output
        // (which it takes for a lost checkpoint of its own) and claims nothing, so the first job
        // is not locked out by its twin's attempt.
        TestPostgres.execute(
                server,
                "DELETE FROM weir_2pc_progress WHERE subtask = -1 AND"
                        + " starts_with(transaction_prefix, '"
                        + prefix
                        + "' || E'\\nowner\\n')");
        assertThat(owner()).isEmpty();
        assertThatThrownBy(() -> job(second, 2, "latest").run())
                .hasRootCauseInstanceOf(UnrecoverableException.class)
                .rootCause()
                .hasMessageContaining("this run asked to resume but found no complete checkpoint");
        assertThat(owner()).as("a job that refuses claims nothing").isEmpty();
        assertThat(job(first, 2, "latest").run().restarts()).isZero();
        assertThat(owner()).hasValue(instance);
        assertEachNumberOnce();
    }

    @Test
    void aJobStartedOverAfterItsCheckpointDirectoryWasDeletedTakesOverItsOwnClaim()
            throws Exception {
        Path checkpoints = temp.resolve("chk");
        assertThat(job(checkpoints, 2, "latest").run().restarts()).isZero();
        String old = CheckpointView.instanceId(checkpoints).orElseThrow();
        assertThat(owner()).hasValue(old);

        // The user deletes the directory to start over, fresh by request (the old output stays).
        deleteTree(checkpoints);
        JobResult again = job(checkpoints, 2, "none").run();
        assertThat(again.restarts()).isZero();
        String fresh = CheckpointView.instanceId(checkpoints).orElseThrow();
        assertThat(fresh).isNotEqualTo(old);
        assertThat(owner()).hasValue(fresh);
        assertThat(TestPostgres.prepared(server, prefix)).isEmpty();
        // Written twice, once per start, as asked: no loss and nothing half-committed.
        List<String> committed = rows();
        assertThat(committed).hasSize(2 * N);
        assertThat(new HashSet<>(committed)).hasSize(N);
    }

    @Test
    void aJobResumingOnANewDirectoryAfterTheOldOneWasDeletedIsToldTheOutputIsTheOldJobs()
            throws Exception {
        Path checkpoints = temp.resolve("chk");
        assertThat(job(checkpoints, 2, "latest").run().restarts()).isZero();
        String old = CheckpointView.instanceId(checkpoints).orElseThrow();

        // The directory is deleted, and the job starts again asking to resume ("latest"): the old
        // instance's claim is taken over, and its output in the table is not this job's to resume.
        deleteTree(checkpoints);
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> job(checkpoints, 2, "latest").run())
                .hasStackTraceContaining("is from another job instance")
                .hasStackTraceContaining(old)
                .hasStackTraceContaining("resume \"none\" after emptying table")
                .satisfies(
                        e ->
                                assertThat(
                                                e.toString()
                                                        + java.util.Arrays.toString(
                                                                e.getStackTrace()))
                                        .doesNotContain("_manifest) is lost"));
        assertThat(TestPostgres.prepared(server, prefix)).isEmpty();
        assertEachNumberOnce();
    }

    // ---- the claim, on writers made by hand ----

    /** A writer of job instance {@code id} whose checkpoint directory is {@code directory}. */
    TransactionalWriter<String, String> writer(String id, Path directory, long restored)
            throws Exception {
        return writer(sink(), name, id, directory, restored);
    }

    /**
     * A writer of {@code sink} in job {@code jobName}, instance {@code id} ("" for none, then
     * without a directory).
     */
    TransactionalWriter<String, String> writer(
            PostgresTwoPhaseCommitSink<String> sink,
            String jobName,
            String id,
            Path directory,
            long restored)
            throws Exception {
        return sink.createTransactionalWriter(
                new SinkContext() {
                    @Override
                    public String jobName() {
                        return jobName;
                    }

                    @Override
                    public String sinkName() {
                        return "out";
                    }

                    @Override
                    public int subtaskIndex() {
                        return 0;
                    }

                    @Override
                    public int parallelism() {
                        return 1;
                    }

                    @Override
                    public long restoredCheckpointId() {
                        return restored;
                    }

                    @Override
                    public String jobInstanceId() {
                        return id;
                    }

                    @Override
                    public Optional<Path> checkpointDirectory() {
                        return Optional.ofNullable(directory);
                    }
                });
    }

    /** A checkpoint directory that holds instance {@code id}, as the runner leaves it. */
    Path directoryOf(String id) throws Exception {
        Path directory = temp.resolve(id);
        Files.createDirectories(directory);
        Files.writeString(directory.resolve("_instance-id"), id + "\n");
        return directory;
    }

    @Test
    void theFirstWriterToRecoverClaimsAndALaterOneOfAnotherInstanceRefusesBeforeTouchingAnything()
            throws Exception {
        Path a = directoryOf("instance-a");
        Path b = directoryOf("instance-b");
        // Both open before either claims: the check at open passes for both; the claim under the
        // lock lets only the first through.
        try (TransactionalWriter<String, String> first = writer("instance-a", a, -1);
                TransactionalWriter<String, String> second = writer("instance-b", b, -1)) {
            first.recoverOwned(List.of(), 0, 1);
            assertThatThrownBy(() -> second.recoverOwned(List.of(), 0, 1))
                    .isInstanceOf(UnrecoverableException.class)
                    .hasMessageContaining("was claimed at the same time by another job")
                    .hasMessageContaining("instance-a");
        }
        assertThat(owner()).hasValue("instance-a");
        // A lingering prepared transaction of the owner survives a start of the other instance.
        String lingering = prefix + ":0:7";
        try (java.sql.Connection connection = server.getPostgresDatabase().getConnection();
                java.sql.Statement statement = connection.createStatement()) {
            connection.setAutoCommit(false);
            statement.execute("INSERT INTO " + table + " VALUES ('x')");
            statement.execute("PREPARE TRANSACTION '" + lingering + "'");
        }
        assertThatThrownBy(() -> writer("instance-b", b, -1).close())
                .isInstanceOf(UnrecoverableException.class)
                .hasMessageContaining("is claimed by another job");
        assertThat(TestPostgres.prepared(server, prefix)).containsExactly(lingering);
        // A job without an instance id claims nothing but refuses too, before touching anything.
        assertThatThrownBy(() -> writer(sink(), name, "", null, -1).close())
                .isInstanceOf(UnrecoverableException.class)
                .hasMessageContaining("is claimed by another job")
                .hasMessageContaining("has no instance id")
                .hasMessageContaining("enable checkpointing on its checkpoint directory " + a)
                .hasMessageContaining("share the default prefix");
        // A prefix set by hand, by a job of another name: no talk of the default prefix or of
        // moving the same job.
        assertThatThrownBy(
                        () ->
                                writer(
                                                sink().transactionIdPrefix(prefix),
                                                "another",
                                                "instance-b",
                                                b,
                                                -1)
                                        .close())
                .isInstanceOf(UnrecoverableException.class)
                .hasMessageContaining("is claimed by another job")
                .hasMessageContaining("The prefix was set with transactionIdPrefix")
                .hasMessageNotContaining("share the default prefix")
                .hasMessageNotContaining("start it on its checkpoint directory");
        // The owner's directory looks gone, but its prepared transaction says it may run: no
        // takeover.
        Files.writeString(a.resolve("_instance-id"), "instance-elsewhere\n");
        assertThatThrownBy(() -> writer("instance-b", b, -1).close())
                .isInstanceOf(UnrecoverableException.class)
                .hasMessageContaining("is claimed by another job")
                .hasMessageContaining("1 prepared transaction(s) of the prefix wait (" + lingering);
        Files.writeString(a.resolve("_instance-id"), "instance-a\n");
        assertThat(TestPostgres.prepared(server, prefix)).containsExactly(lingering);
        assertThat(owner()).hasValue("instance-a");
        // Its own restart rolls it back as before.
        try (TransactionalWriter<String, String> owner = writer("instance-a", a, -1)) {
            owner.recoverOwned(List.of(), 0, 1);
        }
        assertThat(TestPostgres.prepared(server, prefix)).isEmpty();
        assertThat(rows()).isEmpty();

        // Once the owner's directory holds another instance (deleted and started over), its
        // claim is taken over.
        Files.writeString(a.resolve("_instance-id"), "instance-c\n");
        try (TransactionalWriter<String, String> other = writer("instance-b", b, -1)) {
            other.recoverOwned(List.of(), 0, 1);
        }
        assertThat(owner()).hasValue("instance-b");
    }

    private static void deleteTree(Path root) throws java.io.IOException {
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }
}
