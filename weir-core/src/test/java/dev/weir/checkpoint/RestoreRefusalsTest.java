package dev.weir.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.api.JobFailedException;
import dev.weir.api.JobHandle;
import dev.weir.api.Pipeline;
import dev.weir.api.RestartStrategy;
import dev.weir.api.UnrecoverableException;
import dev.weir.api.checkpoint.CheckpointConfig;
import dev.weir.api.codec.Codec;
import dev.weir.api.codec.Codecs;
import dev.weir.api.sink.FileSink;
import dev.weir.api.source.Sources;
import dev.weir.testing.ChildJvm;
import dev.weir.testing.LockHolderChild;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 12, items 3, 4 and 6: a restore that would silently duplicate output, decode state with the
 * wrong codec, orphan state under a new key type, or share a checkpoint directory with another job
 * is refused, naming the cause and the fix.
 */
class RestoreRefusalsTest {
    @TempDir Path dir;

    record Total(long count, long sum) {}

    private Pipeline lines(String name, String resume) {
        Pipeline pipeline =
                Pipeline.create(name)
                        .parallelism(2)
                        .checkpointing(
                                CheckpointConfig.exactlyOnce(Duration.ZERO, dir.resolve("chk"))
                                        .withResume(resume))
                        .restartStrategy(RestartStrategy.none());
        pipeline.source("n", Sources.sequence(1, Long.MAX_VALUE - 1, 2, 100_000))
                .map(n -> Long.toString(n))
                .sink("out", FileSink.<String>to(dir.resolve("out")).rollBytes(4096));
        return pipeline;
    }

    /** Runs until {@code checkpoints} checkpoints completed and committed, then cancels. */
    private void runCheckpoints(Pipeline pipeline, int checkpoints) throws Exception {
        java.util.Set<String> earlier = new java.util.HashSet<>(fileNames());
        JobHandle job = pipeline.start();
        for (int i = 0; i < checkpoints; i++) {
            // A file this run writes: the checkpoint will have records to commit.
            awaitFile(".inprogress-", earlier);
            awaitFile(
                    String.format(
                            "-%011d-", job.triggerCheckpoint().get(30, TimeUnit.SECONDS).id()),
                    earlier);
        }
        job.cancel();
        assertThatThrownBy(job::await).isNotNull();
    }

    private List<String> fileNames() throws Exception {
        Files.createDirectories(dir.resolve("out"));
        try (Stream<Path> files = Files.list(dir.resolve("out"))) {
            return files.map(p -> p.getFileName().toString()).toList();
        }
    }

    private static void assertNoDuplicates(List<String> committed) {
        assertThat(committed).isNotEmpty().doesNotHaveDuplicates();
    }

    private List<Path> completeCheckpoints() throws Exception {
        try (Stream<Path> entries = Files.list(dir.resolve("chk"))) {
            return entries.filter(p -> Files.exists(p.resolve("_manifest"))).sorted().toList();
        }
    }

    /**
     * Waits until a file whose name contains {@code marker} is in the sink's directory, such as the
     * files committed for a checkpoint (commits run after the checkpoint's future completes).
     */
    private void awaitFile(String marker, java.util.Set<String> except) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            if (fileNames().stream().anyMatch(n -> n.contains(marker) && !except.contains(n))) {
                return;
            }
            java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
        }
        throw new AssertionError("no file named *" + marker + "* in " + dir.resolve("out"));
    }

    @Test
    void item3_aLostNewestManifestIsRefusedByTheFileSinkInsteadOfDuplicatingItsOutput()
            throws Exception {
        runCheckpoints(lines("lost-manifest", "latest"), 3);
        List<Path> complete = completeCheckpoints();
        Path newest = complete.get(complete.size() - 1);
        long newestId = Long.parseLong(newest.getFileName().toString().substring(4));
        List<String> before = FileSink.readCommitted(dir.resolve("out"));
        Files.delete(newest.resolve("_manifest"));

        assertThatThrownBy(() -> lines("lost-manifest", "latest").run())
                .isInstanceOf(JobFailedException.class)
                .cause()
                .isInstanceOf(UnrecoverableException.class)
                .hasMessageContaining("was committed for checkpoint " + newestId)
                .hasMessageContaining("restored the older checkpoint")
                .hasMessageContaining("Start from that savepoint or checkpoint");
        assertThat(FileSink.readCommitted(dir.resolve("out"))).isEqualTo(before);
        assertNoDuplicates(before);
    }

    @Test
    void item3_everyManifestLostIsRefusedToo_butResumeNoneIsTheUsersChoice() throws Exception {
        runCheckpoints(lines("all-lost", "latest"), 2);
        for (Path checkpoint : completeCheckpoints()) {
            Files.delete(checkpoint.resolve("_manifest"));
        }
        assertThatThrownBy(() -> lines("all-lost", "latest").run())
                .cause()
                .hasMessageContaining("found no complete checkpoint to restore");

        JobHandle fresh = lines("all-lost", "none").start();
        fresh.triggerCheckpoint().get(30, TimeUnit.SECONDS);
        fresh.cancel();
        assertThatThrownBy(fresh::await).isNotNull();
    }

    @Test
    void item3_aNormalRestartFromTheNewestCheckpointIsNotRefused() throws Exception {
        runCheckpoints(lines("normal", "latest"), 2);
        runCheckpoints(lines("normal", "latest"), 2);
        assertNoDuplicates(FileSink.readCommitted(dir.resolve("out")));
    }

    /**
     * Runs {@code pipeline} until its state holds keys and one checkpoint completed, then cancels
     * it (input not ended).
     */
    private void checkpointOnce(Pipeline pipeline) throws Exception {
        long before = counted.count();
        JobHandle job = pipeline.start();
        counted.awaitAtLeast(before + 100);
        job.triggerCheckpoint().get(30, TimeUnit.SECONDS);
        job.cancel();
        assertThatThrownBy(job::await).isNotNull();
    }

    private Pipeline totals(Codec<Total> codec, boolean stringKeys, long to) {
        Pipeline pipeline =
                Pipeline.create("totals")
                        .checkpointing(
                                CheckpointConfig.exactlyOnce(Duration.ZERO, dir.resolve("chk")))
                        .restartStrategy(RestartStrategy.none());
        pipeline.source("n", Sources.sequence(1, to, 1, 100_000))
                .keyBy(n -> stringKeys ? (Object) ("k" + n % 3) : (Object) (n % 3))
                .<Total, Long>process(
                        "totals",
                        codec,
                        (key, n, state, out) -> {
                            Total now = state.value();
                            state.update(
                                    now == null
                                            ? new Total(1, n)
                                            : new Total(now.count() + 1, now.sum() + n));
                            out.collect(n);
                        })
                .sink("out", counted);
        return pipeline;
    }

    private final dev.weir.testing.LiveCountSink<Long> counted =
            new dev.weir.testing.LiveCountSink<>();

    @Test
    void item4_aStateCodecChangeIsRefusedNamingTheStateAndBothCodecs() throws Exception {
        checkpointOnce(totals(Codecs.record(Total.class), false, Long.MAX_VALUE - 1));
        @SuppressWarnings({"unchecked", "rawtypes"})
        Codec<Total> longs = (Codec) Codecs.LONG;
        assertThatThrownBy(() -> totals(longs, false, Long.MAX_VALUE - 1).run())
                .cause()
                .isInstanceOf(UnrecoverableException.class)
                .hasMessageContaining("state 'value' of step 'totals'")
                .hasMessageContaining("weir.record:" + Total.class.getName())
                .hasMessageContaining("weir.long");
    }

    @Test
    void item4_aKeyTypeChangeIsRefusedInsteadOfOrphaningTheState() throws Exception {
        checkpointOnce(totals(Codecs.record(Total.class), false, Long.MAX_VALUE - 1));
        assertThatThrownBy(() -> totals(Codecs.record(Total.class), true, Long.MAX_VALUE - 1).run())
                .cause()
                .isInstanceOf(UnrecoverableException.class)
                .hasMessageContaining("keys are of type java.lang.Long")
                .hasMessageContaining("java.lang.String")
                .hasMessageContaining("wrap keys of several classes in one");
    }

    @Test
    void item4_theSameCodecRestores() throws Exception {
        checkpointOnce(totals(Codecs.record(Total.class), false, Long.MAX_VALUE - 1));
        checkpointOnce(totals(Codecs.record(Total.class), false, Long.MAX_VALUE - 1));
    }

    @Test
    void item6_twoJobsOnOneCheckpointDirectoryInOneProcess() throws Exception {
        JobHandle first = lines("first", "latest").start();
        try {
            assertThatThrownBy(() -> lines("second", "latest").start())
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("checkpoint directory " + dir.resolve("chk"))
                    .hasMessageContaining("is in use by this process");
        } finally {
            first.cancel();
            assertThatThrownBy(first::await).isNotNull();
        }
        // Released when the job ended: the next job may use it.
        JobHandle next = lines("first", "latest").start();
        next.cancel();
        assertThatThrownBy(next::await).isNotNull();
    }

    @Test
    void item6_aCheckpointDirectoryHeldByAnotherProcessNamesItsPid() throws Exception {
        Process holder = ChildJvm.startPiped(LockHolderChild.class, dir.resolve("chk").toString());
        try (BufferedReader out =
                new BufferedReader(
                        new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8))) {
            assertThat(out.readLine()).isEqualTo("LOCKED");
            assertThatThrownBy(() -> lines("second", "latest").start())
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("in use by another process (pid " + holder.pid() + ")");
        } finally {
            holder.destroyForcibly().waitFor();
        }
        // SIGKILL released it.
        JobHandle next = lines("after-kill", "none").start();
        next.cancel();
        assertThatThrownBy(next::await).isNotNull();
    }

    @Test
    void item6_resumingAnotherJobsCheckpointsIsRefused() throws Exception {
        runCheckpoints(lines("owner", "latest"), 1);
        assertThatThrownBy(() -> lines("intruder", "latest").start())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("holds checkpoints of job 'owner', not of 'intruder'");
    }
}
