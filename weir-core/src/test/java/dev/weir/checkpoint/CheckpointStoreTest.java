package dev.weir.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.api.JobHandle;
import dev.weir.api.Pipeline;
import dev.weir.api.checkpoint.CheckpointConfig;
import dev.weir.api.checkpoint.CheckpointCorruptedException;
import dev.weir.api.checkpoint.CheckpointStats;
import dev.weir.api.checkpoint.CheckpointView;
import dev.weir.api.sink.Sinks;
import dev.weir.api.source.Sources;
import dev.weir.testing.KeyedCountJob;
import dev.weir.testing.LiveCountSink;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Invariants 5, 8 and 9 of docs/design/001-checkpoints.md. */
class CheckpointStoreTest {
    @TempDir Path dir;

    static final LiveCountSink<KeyedCountJob.Update> SINK = new LiveCountSink<>();

    static Pipeline endlessJob(Path dir, int maxParallelism) {
        Pipeline pipeline =
                Pipeline.create("endless")
                        .parallelism(2)
                        .maxParallelism(maxParallelism)
                        .checkpointing(CheckpointConfig.exactlyOnce(Duration.ZERO, dir));
        KeyedCountJob.apply(
                        pipeline.source(
                                "numbers", Sources.sequence(1, Long.MAX_VALUE - 1, 2, 200_000)),
                        10)
                .sink("out", SINK);
        return pipeline;
    }

    /** Runs the endless job, takes {@code count} checkpoints, cancels; returns their stats. */
    static List<CheckpointStats> takeCheckpoints(Pipeline pipeline, int count) throws Exception {
        long before = SINK.count();
        JobHandle job = pipeline.start();
        SINK.awaitAtLeast(before + 1000);
        List<CheckpointStats> stats = new ArrayList<>();
        try {
            for (int i = 0; i < count; i++) {
                stats.add(job.triggerCheckpoint().get(30, TimeUnit.SECONDS));
            }
        } finally {
            job.cancel();
            assertThatThrownBy(job::await).isInstanceOf(CancellationException.class);
        }
        return stats;
    }

    @Test
    void invariant5_aCompleteCheckpointHasAManifestListingEveryTaskFileWithItsChecksum()
            throws Exception {
        CheckpointStats stats = takeCheckpoints(endlessJob(dir, 128), 1).get(0);

        List<String> manifest = Files.readAllLines(stats.path().resolve("_manifest"));
        assertThat(manifest.get(0)).isEqualTo("weir-manifest 1");
        assertThat(manifest).filteredOn(l -> l.startsWith("file ")).hasSize(4);
        assertThat(manifest.get(manifest.size() - 1)).matches("crc32c [0-9a-f]{8}");
        assertThat(stats.tasks()).hasSize(4);
        CheckpointView view = CheckpointView.open(stats.path());
        assertThat(view.offsets("numbers")).containsOnlyKeys("seq-0-of-2", "seq-1-of-2");
        assertThat(view.operators()).contains("count-sum");
    }

    @Test
    void invariant9_checkpointIdsGrowAcrossRestartsAndOnlyTheNewestAreKept() throws Exception {
        List<CheckpointStats> first = takeCheckpoints(endlessJob(dir, 128), 2);
        List<CheckpointStats> second = takeCheckpoints(endlessJob(dir, 128), 3);

        assertThat(first).extracting(CheckpointStats::id).containsExactly(1L, 2L);
        assertThat(second).extracting(CheckpointStats::id).containsExactly(3L, 4L, 5L);
        try (Stream<Path> entries = Files.list(dir)) {
            assertThat(entries.map(p -> p.getFileName().toString()).sorted())
                    .containsExactly(
                            ".lock",
                            "_instance-id",
                            "chk-00000000003",
                            "chk-00000000004",
                            "chk-00000000005");
        }
    }

    @Test
    void invariant8_aFlippedByteIsALoudErrorNamingTheFile() throws Exception {
        CheckpointStats stats = takeCheckpoints(endlessJob(dir, 128), 1).get(0);
        Path victim = stats.path().resolve("task-count-sum-1.state");
        try (RandomAccessFile file = new RandomAccessFile(victim.toFile(), "rw")) {
            file.seek(file.length() / 2);
            int b = file.read();
            file.seek(file.length() / 2);
            file.write(b ^ 0x01);
        }

        assertThatThrownBy(() -> endlessJob(dir, 128).start())
                .isInstanceOf(CheckpointCorruptedException.class)
                .hasMessageContaining(victim.toString())
                .hasMessageContaining("CRC32C")
                .hasMessageContaining("will not silently restore an older checkpoint");
    }

    @Test
    void openingAJobsCheckpointDirectoryAsOneCheckpointNamesTheNewestInsteadOfCallingItCorrupt()
            throws Exception {
        List<CheckpointStats> stats = takeCheckpoints(endlessJob(dir, 128), 2);
        String newest = stats.get(1).path().getFileName().toString();

        assertThatThrownBy(() -> CheckpointView.open(dir))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("is a checkpoint directory, not one checkpoint")
                .hasMessageContaining(dir.resolve(newest).toString());
        assertThatThrownBy(() -> CheckpointView.open(dir.resolve("chk-nope")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("the path does not exist")
                .hasMessageContaining("\"latest\", \"none\" or such a path");
        // A file (here the manifest itself) is named as a file, not called a corrupt checkpoint.
        assertThatThrownBy(() -> CheckpointView.open(stats.get(1).path().resolve("_manifest")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("it is a file, not a directory")
                .hasMessageContaining("\"latest\", \"none\" or such a path");
        // A directory of other files is not called a corrupt checkpoint either (a breaker's find).
        Path other = Files.createTempDirectory("not-a-checkpoint");
        Files.writeString(other.resolve("notes.txt"), "hello");
        assertThatThrownBy(() -> CheckpointView.open(other))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("the directory holds none")
                .hasMessageContaining("\"latest\", \"none\" or such a path");
        // One whose manifest is gone but whose state files are there is: its manifest is missing.
        Path damaged = Files.createTempDirectory("damaged-checkpoint");
        Files.copy(
                stats.get(1).path().resolve("task-numbers-0.state"),
                damaged.resolve("task-numbers-0.state"));
        assertThatThrownBy(() -> CheckpointView.open(damaged))
                .isInstanceOf(CheckpointCorruptedException.class)
                .hasMessageContaining("_manifest");
        // A directory holding such a checkpoint names it, not "none".
        Path holder = Files.createTempDirectory("holds-a-damaged-one");
        Files.move(damaged, holder.resolve("chk-00000000016"));
        Files.writeString(holder.resolve("readme.txt"), "copied here");
        assertThatThrownBy(() -> CheckpointView.open(holder))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("it holds chk-00000000016 without a _manifest");
        assertThat(CheckpointView.open(stats.get(1).path()).id()).isEqualTo(stats.get(1).id());
        // An empty resume setting is refused where it is made (a no-break space is empty too).
        assertThatThrownBy(
                        () ->
                                CheckpointConfig.exactlyOnce(Duration.ofSeconds(1), dir)
                                        .withResume("\u00A0"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("an empty resume setting");
        assertThatThrownBy(
                        () ->
                                CheckpointConfig.exactlyOnce(Duration.ofSeconds(1), dir)
                                        .withResume(" "))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("an empty resume setting");
        // A resume word with a stray space or a capital is refused, not taken as a path.
        for (String almost : new String[] {"latest ", " none", "Latest"}) {
            assertThatThrownBy(
                            () ->
                                    CheckpointConfig.exactlyOnce(Duration.ofSeconds(1), dir)
                                            .withResume(almost))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("is not the word")
                    .hasMessageContaining("\"./" + almost + "\" for a directory");
        }
        // Blanks String.strip() keeps (a no-break space pasted from a document, a zero-width
        // space) count as blanks too; the message shows what was passed, escaped.
        for (String pasted :
                new String[] {
                    "latest\u00A0",
                    "\u200Bnone",
                    "\u202Flatest",
                    "latest\u2060",
                    "lat\u200Best",
                    "\u00ADnone",
                    "none\u200E",
                    "latest\u0000",
                    "\u3164latest"
                }) {
            assertThatThrownBy(
                            () ->
                                    CheckpointConfig.exactlyOnce(Duration.ofSeconds(1), dir)
                                            .withResume(pasted))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("is not the word")
                    .hasMessageContaining("\\u");
        }
        assertThatThrownBy(
                        () ->
                                CheckpointConfig.exactlyOnce(Duration.ofSeconds(1), dir)
                                        .withResume("latest\n"))
                .hasMessageContaining("\"latest\\n\" is not the word")
                .hasMessageContaining("\"./latest\\n\" for a directory")
                .hasMessageNotContaining("\n");
        // A long setting is cut in the message.
        String padded = "latest" + "\u00A0".repeat(100_000);
        assertThatThrownBy(
                        () ->
                                CheckpointConfig.exactlyOnce(Duration.ofSeconds(1), dir)
                                        .withResume(padded))
                .hasMessageContaining("(100006 characters)")
                .satisfies(e -> assertThat(e.getMessage()).hasSizeLessThan(4_000));
        assertThat(
                        CheckpointConfig.exactlyOnce(Duration.ofSeconds(1), dir)
                                .withResume("./latest")
                                .resume())
                .isEqualTo("./latest");
    }

    @Test
    void invariant8_aMissingFileIsALoudErrorNamingTheFile() throws Exception {
        CheckpointStats stats = takeCheckpoints(endlessJob(dir, 128), 1).get(0);
        Path victim = stats.path().resolve("task-numbers-0.state");
        Files.delete(victim);

        assertThatThrownBy(() -> endlessJob(dir, 128).start())
                .isInstanceOf(CheckpointCorruptedException.class)
                .hasMessageContaining(victim.toString())
                .hasMessageContaining("missing");
    }

    @Test
    void invariant8_aTornManifestIsALoudErrorAndNoOlderCheckpointIsUsed() throws Exception {
        List<CheckpointStats> stats = takeCheckpoints(endlessJob(dir, 128), 2);
        Path manifest = stats.get(1).path().resolve("_manifest");
        byte[] bytes = Files.readAllBytes(manifest);
        Files.write(manifest, java.util.Arrays.copyOf(bytes, bytes.length / 2));

        assertThatThrownBy(() -> endlessJob(dir, 128).start())
                .isInstanceOf(CheckpointCorruptedException.class)
                .hasMessageContaining(manifest.toString())
                .hasMessageContaining("torn");
    }

    @Test
    void aCheckpointWithoutManifestNeverCompletedSoTheLatestCompleteOneIsRestored()
            throws Exception {
        takeCheckpoints(endlessJob(dir, 128), 1);
        Path incomplete = dir.resolve("chk-00000000002");
        Files.createDirectories(incomplete);
        Files.write(incomplete.resolve("task-numbers-0.state"), new byte[] {1, 2, 3});

        List<CheckpointStats> next = takeCheckpoints(endlessJob(dir, 128), 1);

        assertThat(next.get(0).id()).isEqualTo(3);
    }

    @Test
    void aDifferentMaxParallelismIsRefusedWithTheSettingToUse() throws Exception {
        takeCheckpoints(endlessJob(dir, 128), 1);

        assertThatThrownBy(() -> endlessJob(dir, 64).start())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("maxParallelism 128")
                .hasMessageContaining("Pipeline.maxParallelism(128)");
    }

    @Test
    void stateForAMissingOperatorIsRefusedUnlessAllowed() throws Exception {
        takeCheckpoints(endlessJob(dir, 128), 1);
        Pipeline renamed =
                Pipeline.create("endless")
                        .parallelism(2)
                        .checkpointing(CheckpointConfig.exactlyOnce(Duration.ZERO, dir));
        renamed.source("numbers", Sources.sequence(1, 100, 2, 0))
                .keyBy(n -> n % 10)
                .reduce("renamed-sum", Long::sum)
                .sink("out", Sinks.counting());

        assertThatThrownBy(renamed::start)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("operator 'count-sum'")
                .hasMessageContaining("allowNonRestoredState(true)");

        renamed.allowNonRestoredState(true).run();
    }

    @Test
    void resumeNoneStartsFreshWhileKeepingIdsGrowing() throws Exception {
        takeCheckpoints(endlessJob(dir, 128), 1);
        Pipeline fresh = endlessJob(dir, 128);
        fresh.checkpointing(CheckpointConfig.exactlyOnce(Duration.ZERO, dir).withResume("none"));
        assertThat(takeCheckpoints(fresh, 1).get(0).id()).isEqualTo(2);
    }
}
