package dev.weir.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.api.JobFailedException;
import dev.weir.api.Pipeline;
import dev.weir.api.UnrecoverableException;
import dev.weir.api.checkpoint.CheckpointConfig;
import dev.weir.api.codec.Codecs;
import dev.weir.api.log.DurableLog;
import dev.weir.api.log.LogEntry;
import dev.weir.api.log.LogOptions;
import dev.weir.api.log.LogRecord;
import dev.weir.api.sink.LogSink;
import dev.weir.api.sink.LogSink.Committable;
import dev.weir.api.sink.SinkContext;
import dev.weir.api.sink.TransactionalWriter;
import dev.weir.api.source.Sources;
import dev.weir.internal.io.ByteArrayDataInput;
import dev.weir.internal.io.ByteArrayDataOutput;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * LogSink refuses to replay output it already published for a checkpoint newer than the one the job
 * restored (issue 12, item 3's LogSink part): a lost newest {@code _manifest} must not turn into
 * duplicates, while ordinary restarts and fresh starts are not refused.
 */
class LogSinkLostCheckpointTest {
    @TempDir Path temp;
    Path log;

    @BeforeEach
    void topic() {
        log = temp.resolve("log");
        try (DurableLog durable = DurableLog.open(log, LogOptions.defaults())) {
            durable.createTopic("out", 2);
        }
    }

    static SinkContext context(
            String job, String sink, int subtask, int parallelism, long restored) {
        return new SinkContext() {
            @Override
            public String jobName() {
                return job;
            }

            @Override
            public String sinkName() {
                return sink;
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
        };
    }

    TransactionalWriter<String, Committable> writer(SinkContext context) throws Exception {
        return LogSink.to(log, "out", Codecs.STRING).createTransactionalWriter(context);
    }

    /**
     * Subtask {@code subtask} of job "job", sink "out", writes 3 records per checkpoint 1..{@code
     * checkpoints} and commits each at once (its checkpoint completed); returns the committables.
     */
    List<Committable> run(String job, String sink, int subtask, int checkpoints) throws Exception {
        List<Committable> committables = new ArrayList<>();
        try (var writer = writer(context(job, sink, subtask, 2, -1))) {
            for (long checkpoint = 1; checkpoint <= checkpoints; checkpoint++) {
                for (int i = 0; i < 3; i++) {
                    writer.write(job + "/" + sink + "/" + subtask + "/" + checkpoint + "/" + i);
                }
                Committable committable = writer.prepareCommit(checkpoint);
                writer.commit(committable);
                committables.add(committable);
            }
        }
        return committables;
    }

    /** Restores {@code restored} in a new writer: commits {@code committed}, then recovers. */
    void restore(
            long restored, List<Committable> committed, int subtask, int parallelism, String job)
            throws Exception {
        try (var writer = writer(context(job, "out", subtask, parallelism, restored))) {
            for (Committable committable : committed) {
                writer.commit(committable);
            }
            writer.recoverOwned(committed, subtask, parallelism);
        }
    }

    List<String> committedRecords() {
        List<String> all = new ArrayList<>();
        try (DurableLog durable = DurableLog.openReadOnly(log, LogOptions.defaults())) {
            for (int p = 0; p < 2; p++) {
                for (LogRecord r : durable.read("out", p, 0, Integer.MAX_VALUE)) {
                    all.add(Codecs.STRING.fromBytes(r.payload()));
                }
            }
        }
        return all;
    }

    @Test
    void restoringAnOlderCheckpointThanOneWhoseOutputWasCommittedIsRefused() throws Exception {
        List<Committable> committables = run("job", "out", 0, 5);
        List<String> before = committedRecords();

        assertThatThrownBy(() -> restore(3, List.of(committables.get(2)), 0, 2, "job"))
                .isInstanceOf(UnrecoverableException.class)
                .hasMessageContaining("log sink 'out' of job 'job'")
                .hasMessageContaining("topic 'out' partition 0")
                .hasMessageContaining("for checkpoint 4")
                .hasMessageContaining("restored checkpoint 3")
                .hasMessageContaining("Restore the lost checkpoint")
                .hasMessageContaining("resume \"none\"");
        assertThat(committedRecords()).as("nothing appended again").isEqualTo(before);
        assertThat(before).hasSize(15).doesNotHaveDuplicates();
    }

    @Test
    void findingNoCheckpointToResumeWhileOwnOutputExistsIsRefused() throws Exception {
        run("job", "out", 0, 2);
        assertThatThrownBy(() -> restore(0, List.of(), 0, 2, "job"))
                .isInstanceOf(UnrecoverableException.class)
                .hasMessageContaining("found no checkpoint to resume from")
                .hasMessageContaining("for checkpoint 1");
    }

    @Test
    void restoringTheNewestCheckpointIsNotRefused() throws Exception {
        List<Committable> committables = run("job", "out", 0, 5);
        restore(5, List.of(committables.get(4)), 0, 2, "job");
        assertThat(committedRecords()).hasSize(15).doesNotHaveDuplicates();
    }

    @Test
    void aCrashAfterPrepareRestoresTheLastCompleteCheckpointWithoutRefusal() throws Exception {
        List<Committable> committables = run("job", "out", 0, 4);
        try (var writer = writer(context("job", "out", 0, 2, 4))) {
            writer.write("prepared, never committed");
            writer.prepareCommit(5); // checkpoint 5 never completes: the process dies
        }
        restore(4, List.of(committables.get(3)), 0, 2, "job");
        assertThat(committedRecords()).hasSize(12).doesNotContain("prepared, never committed");
        try (Stream<Path> staged = Files.list(log.resolve(".staging").resolve("out"))) {
            assertThat(staged.toList()).as("the abandoned transaction is aborted").isEmpty();
        }
    }

    @Test
    void aRestoredCommittableThatWasNotYetCommittedIsNotTakenForNewerOutput() throws Exception {
        List<Committable> committables = run("job", "out", 0, 3);
        Committable pending;
        try (var writer = writer(context("job", "out", 0, 2, 3))) {
            writer.write("in checkpoint 4");
            pending = writer.prepareCommit(4);
        }
        // checkpoint 4 completed, the process died before (or while) committing it
        restore(4, List.of(pending), 0, 2, "job");
        restore(4, List.of(pending), 0, 2, "job"); // and once more: commit is idempotent
        assertThat(committedRecords()).hasSize(10).containsOnlyOnce("in checkpoint 4");
        assertThat(committables).hasSize(3);
    }

    @Test
    void aFreshStartByRequestIsNotChecked() throws Exception {
        run("job", "out", 0, 5);
        restore(-1, List.of(), 0, 2, "job");
    }

    @Test
    void onlyTheSubtaskOwningTheNewerOutputRefusesAndRescalingKeepsOwnership() throws Exception {
        List<Committable> zero = run("job", "out", 0, 3);
        List<Committable> one = run("job", "out", 1, 5);
        // at parallelism 2, subtask 0 owns old subtask 0 only: its output is not newer than 3
        restore(3, List.of(zero.get(2)), 0, 2, "job");
        assertThatThrownBy(() -> restore(3, List.of(one.get(2)), 1, 2, "job"))
                .hasMessageContaining("subtask 1");
        // at parallelism 1, subtask 0 owns both
        assertThatThrownBy(() -> restore(3, List.of(zero.get(2), one.get(2)), 0, 1, "job"))
                .isInstanceOf(UnrecoverableException.class)
                .hasMessageContaining("for checkpoint 4 (subtask 1)");
    }

    @Test
    void newerOutputOfAnotherSinkOrJobIsNotTakenForOwn() throws Exception {
        List<Committable> ours = run("job", "out", 0, 2);
        run("job", "other-sink", 0, 9);
        run("other-job", "out", 0, 9);
        restore(2, List.of(ours.get(1)), 0, 2, "job");
    }

    @Test
    void anEmptyCheckpointStillYieldsACommittableThatBoundsTheSearch() throws Exception {
        try (var writer = writer(context("job", "out", 0, 2, -1))) {
            writer.write("a");
            writer.commit(writer.prepareCommit(1));
            Committable empty = writer.prepareCommit(2);
            assertThat(empty).isNotNull();
            assertThat(empty.partitions()).isEmpty();
            assertThat(empty.checkpointId()).isEqualTo(2);
            assertThat(empty.endsAtPrepare()).containsExactly(3, 0); // BEGIN, a, COMMIT
            writer.commit(empty); // nothing to do
        }
        assertThat(committedRecords()).containsExactly("a");
    }

    @Test
    void aCommittableOfAnOlderWeirIsStillRead() throws Exception {
        ByteArrayDataOutput out = new ByteArrayDataOutput(64);
        out.writeUTF("out-0-12.stage");
        out.writeLong((1L << 48) | (1L << 32) | 7);
        out.writeInt(2);
        out.writeLong(-1);
        out.writeLong(40);
        byte[] bytes = out.toByteArray();
        Committable legacy =
                LogSink.to(log, "out", Codecs.STRING)
                        .committableCodec()
                        .decode(new ByteArrayDataInput().reset(bytes, 0, bytes.length));
        assertThat(legacy.checkpointId()).isEqualTo(7);
        assertThat(legacy.partitions()).containsExactly(1);
        assertThat(legacy.endsAtPrepare()).containsExactly(-1, 40);
    }

    // ---- whole jobs: a lost _manifest, a restored final checkpoint, resume "none" ----

    static final long N = 4_000;

    Pipeline job(Path checkpoints, String resume) {
        Pipeline pipeline =
                Pipeline.create("lost-manifest")
                        .parallelism(2)
                        .checkpointing(
                                CheckpointConfig.exactlyOnce(Duration.ofMillis(10), checkpoints)
                                        .withRetained(1_000)
                                        .withResume(resume));
        pipeline.source("numbers", Sources.sequence(1, N, 2, 40_000))
                .map(n -> Long.toString(n))
                .sink("out", LogSink.to(log, "out", Codecs.STRING));
        return pipeline;
    }

    static void assertOneToN(List<String> committed) {
        assertThat(committed).hasSize((int) N).doesNotHaveDuplicates();
        assertThat(committed.stream().mapToLong(Long::parseLong).max().orElse(0)).isEqualTo(N);
        assertThat(committed.stream().mapToLong(Long::parseLong).min().orElse(0)).isEqualTo(1);
    }

    /**
     * The smallest checkpoint id any COMMIT in the topic belongs to: losing the manifests from
     * there on leaves only checkpoints older than every commit, so whatever is restored, some
     * output is newer than it and not among its committables (the final checkpoint's tail,
     * committed under an id reserved before it, may be; losing only the newest manifests can
     * restore such a checkpoint, whose re-commit is exact and no refusal is due).
     */
    long oldestCommittedCheckpoint() {
        long oldest = Long.MAX_VALUE;
        try (DurableLog durable = DurableLog.openReadOnly(log, LogOptions.defaults())) {
            for (int p = 0; p < 2; p++) {
                for (LogEntry entry : durable.readUncommitted("out", p, 0, Integer.MAX_VALUE)) {
                    if (entry.kind() == LogEntry.Kind.COMMIT) {
                        oldest = Math.min(oldest, entry.transaction() & 0xffffffffL);
                    }
                }
            }
        }
        return oldest;
    }

    @Test
    void aJobWhoseNewestManifestsWereLostRefusesInsteadOfDuplicating() throws Exception {
        Path checkpoints = temp.resolve("chk");
        job(checkpoints, "latest").run();
        assertOneToN(committedRecords());

        long newest = oldestCommittedCheckpoint();
        assertThat(newest).isPositive().isLessThan(Long.MAX_VALUE);
        try (Stream<Path> dirs = Files.list(checkpoints)) {
            for (Path dir : dirs.toList()) {
                if (!dir.getFileName().toString().startsWith("chk-")) {
                    continue; // the directory's lock and id files
                }
                long id = Long.parseLong(dir.getFileName().toString().substring(4));
                if (id >= newest) {
                    Files.deleteIfExists(dir.resolve("_manifest")); // lost
                }
            }
        }

        assertThatThrownBy(() -> job(checkpoints, "latest").run())
                .isInstanceOf(JobFailedException.class)
                .satisfies(e -> assertThat(UnrecoverableException.isUnrecoverable(e)).isTrue())
                .hasMessageContaining("topic 'out'")
                .hasMessageContaining("refuses to run")
                .hasMessageContaining("of its own output for checkpoint");
        assertOneToN(committedRecords());

        job(checkpoints, "none").run(); // a fresh start by request is the user's choice
        assertThat(committedRecords()).hasSize((int) (2 * N));
    }

    @Test
    void restoringTheFinalCheckpointOfAFinishedJobIsNotRefused() throws Exception {
        Path checkpoints = temp.resolve("chk");
        job(checkpoints, "latest").run();
        job(checkpoints, "latest").run();
        assertOneToN(committedRecords());
    }
}
