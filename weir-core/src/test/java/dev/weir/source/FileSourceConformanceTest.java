package dev.weir.source;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.api.JobHandle;
import dev.weir.api.Pipeline;
import dev.weir.api.source.Source;
import dev.weir.api.source.Sources;
import dev.weir.testing.LiveCountSink;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;

class FileSourceConformanceTest extends ReplayableSourceConformance {
    @Override
    protected Source<String> createSource(List<String> records, int splits) throws Exception {
        Path dir = Files.createDirectories(temp.resolve("files-" + System.nanoTime()));
        int files = 5;
        for (int f = 0; f < files; f++) {
            StringBuilder text = new StringBuilder();
            for (int i = f; i < records.size(); i += files) {
                text.append(records.get(i)).append('\n');
            }
            Files.writeString(dir.resolve("part-" + f + ".txt"), text, StandardCharsets.UTF_8);
        }
        Files.writeString(dir.resolve(".in-progress"), "ignored\n");
        return Sources.files(dir, splits);
    }

    @Override
    protected Source<String> createSourceWithSplits(List<List<String>> splits) throws Exception {
        Path dir = Files.createDirectories(temp.resolve("files-" + System.nanoTime()));
        int count = splits.size();
        for (int k = 0; k < count; k++) {
            // Two files per split (names chosen to hash to split k), read in name order.
            List<String> records = splits.get(k);
            int half = records.size() / 2;
            writeLines(dir.resolve(nameInSplit("a", k, count)), records.subList(0, half));
            writeLines(
                    dir.resolve(nameInSplit("b", k, count)), records.subList(half, records.size()));
        }
        return Sources.files(dir, count);
    }

    /** A file name starting with {@code prefix} that the files source puts in split {@code k}. */
    static String nameInSplit(String prefix, int k, int splits) {
        for (int i = 0; ; i++) {
            String name = prefix + "-" + i + ".txt";
            if (Math.floorMod(name.hashCode(), splits) == k) {
                return name;
            }
        }
    }

    static void writeLines(Path file, List<String> lines) throws Exception {
        StringBuilder text = new StringBuilder();
        for (String line : lines) {
            text.append(line).append('\n');
        }
        Files.writeString(file, text, StandardCharsets.UTF_8);
    }

    @Test
    void watchingPicksUpFilesThatAppearLater() throws Exception {
        Path dir = Files.createDirectories(temp.resolve("watched"));
        Files.writeString(dir.resolve("a.txt"), "1\n2\n");
        LiveCountSink<String> sink = new LiveCountSink<>();
        Pipeline pipeline = Pipeline.create("watch");
        pipeline.source("files", Sources.filesWatching(dir, Duration.ofMillis(10)))
                .sink("out", sink);
        JobHandle job = pipeline.start();
        sink.awaitAtLeast(2);
        Files.writeString(dir.resolve("_b.tmp"), "3\n4\nlast-with");
        Files.move(dir.resolve("_b.tmp"), dir.resolve("b.txt"));
        sink.awaitAtLeast(4);
        // The last line waits for its newline, and is then read whole.
        Files.writeString(
                dir.resolve("b.txt"), "out-newline-yet\n", java.nio.file.StandardOpenOption.APPEND);
        sink.awaitAtLeast(5);
        job.cancel();
        Assertions.assertThatThrownBy(job::await).isInstanceOf(CancellationException.class);
        assertThat(sink.count()).isEqualTo(5);
    }

    static String lines(int from, int to) {
        StringBuilder text = new StringBuilder();
        for (int i = from; i <= to; i++) {
            text.append(i).append('\n');
        }
        return text.toString();
    }

    Pipeline watchingIntoFiles(Path in, Path work) {
        Pipeline pipeline =
                Pipeline.create("tail")
                        .checkpointing(
                                dev.weir.api.checkpoint.CheckpointConfig.exactlyOnce(
                                        Duration.ofMillis(10), work.resolve("chk")));
        pipeline.source("files", Sources.filesWatching(in, Duration.ofMillis(10), 4))
                .sink("out", dev.weir.api.sink.FileSink.<String>to(work.resolve("out")));
        return pipeline;
    }

    static long lastCheckpoint(JobHandle job) {
        var stats = job.checkpointStats();
        return stats.isEmpty() ? 0 : stats.get(stats.size() - 1).id();
    }

    static List<String> awaitCommitted(JobHandle job, Path out, int lines) throws Exception {
        while (true) {
            List<String> committed =
                    Files.isDirectory(out)
                            ? dev.weir.api.sink.FileSink.readCommitted(out)
                            : List.of();
            if (committed.size() >= lines) {
                return committed;
            }
            if (job.isDone()) {
                job.await();
                throw new AssertionError("the job ended with " + committed.size() + " lines");
            }
            Thread.onSpinWait();
        }
    }

    /**
     * Watching mode reads what is appended to a file it has read, while it runs and after a restore
     * (its state keeps how far each finished file was read): each line once.
     */
    @Test
    @org.junit.jupiter.api.Timeout(120)
    void watchingReadsLinesAppendedToAFileItReadOnceEachAlsoAcrossARestore() throws Exception {
        Path in = Files.createDirectories(temp.resolve("appended"));
        Path work = temp.resolve("appended-work");
        Path file = in.resolve("a.txt");
        Files.writeString(file, lines(1, 100));
        JobHandle first = watchingIntoFiles(in, work).start();
        awaitCommitted(first, work.resolve("out"), 100);
        Files.writeString(file, lines(101, 200), java.nio.file.StandardOpenOption.APPEND);
        awaitCommitted(first, work.resolve("out"), 200);
        first.cancel();
        Assertions.assertThatThrownBy(first::await).isInstanceOf(CancellationException.class);

        Files.writeString(file, lines(201, 300), java.nio.file.StandardOpenOption.APPEND);
        Files.writeString(in.resolve("b.txt"), lines(301, 350));
        JobHandle second = watchingIntoFiles(in, work).start();
        awaitCommitted(second, work.resolve("out"), 350);
        Files.writeString(file, lines(351, 400), java.nio.file.StandardOpenOption.APPEND);
        awaitCommitted(second, work.resolve("out"), 400);
        // A line whose bytes come in two writes, with checkpoints (and so polls) between them.
        Files.writeString(file, "40", java.nio.file.StandardOpenOption.APPEND);
        long last = lastCheckpoint(second);
        while (lastCheckpoint(second) < last + 3) {
            assertThat(second.isDone()).isFalse();
            Thread.onSpinWait();
        }
        Files.writeString(file, "1\n", java.nio.file.StandardOpenOption.APPEND);
        List<String> committed = awaitCommitted(second, work.resolve("out"), 401);
        second.cancel();
        Assertions.assertThatThrownBy(second::await).isInstanceOf(CancellationException.class);

        committed = dev.weir.api.sink.FileSink.readCommitted(work.resolve("out"));
        assertThat(committed).doesNotHaveDuplicates();
        assertThat(committed)
                .containsExactlyInAnyOrderElementsOf(
                        java.util.stream.IntStream.rangeClosed(1, 401)
                                .mapToObj(Integer::toString)
                                .toList());
    }

    /**
     * Reader state written before finished files' positions were kept (the names only) still
     * restores: each finished file counts as read to its current end, and the rest is read.
     */
    @Test
    void readerStateWithoutPositionsFromBeforeStillRestores() throws Exception {
        Path dir = Files.createDirectories(temp.resolve("old-state"));
        Files.writeString(dir.resolve("a.txt"), "1\n2\n");
        Files.writeString(dir.resolve("b.txt"), "3\n4\n");
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        try (java.io.DataOutputStream out = new java.io.DataOutputStream(bytes)) {
            out.writeBoolean(false); // no file being read
            out.writeInt(1);
            out.writeUTF("a.txt"); // finished; no positions after the names
        }
        Source<String> source = Sources.filesWatching(dir, Duration.ofMillis(1), 1);
        try (var reader = source.openReader(source.splits(1).get(0), CONTEXT)) {
            reader.restoreState(bytes.toByteArray());
            List<String> read = new java.util.ArrayList<>();
            for (int i = 0; i < 100 && read.size() < 2; i++) {
                reader.poll(read::add, 10);
            }
            assertThat(read).containsExactly("3", "4");
            Files.writeString(dir.resolve("a.txt"), "5\n", java.nio.file.StandardOpenOption.APPEND);
            long until = System.nanoTime() + 10_000_000_000L;
            while (read.size() < 3 && System.nanoTime() < until) {
                reader.poll(read::add, 10);
            }
            assertThat(read).containsExactly("3", "4", "5");
        }
    }

    /**
     * A finished job started again restores its splits as ended and reads none of them again: a
     * file added since, in one of those splits, is not read, and a warning names the split and the
     * way to read it (before, nothing was said, and whether a new file was read depended on the
     * hash of its name).
     */
    @Test
    void inputAddedToAnEndedSplitIsNotReadAndAWarningSaysSo() throws Exception {
        Path in = Files.createDirectories(temp.resolve("ended-in"));
        Path work = temp.resolve("ended-work");
        writeLines(in.resolve(nameInSplit("a", 0, 2)), List.of("1", "2"));
        writeLines(in.resolve(nameInSplit("b", 1, 2)), List.of("3"));
        java.util.function.Supplier<Pipeline> job =
                () -> {
                    Pipeline pipeline =
                            Pipeline.create("ended")
                                    .checkpointing(
                                            dev.weir.api.checkpoint.CheckpointConfig.exactlyOnce(
                                                    Duration.ofHours(1), work.resolve("chk")));
                    pipeline.source("files", Sources.files(in, 2))
                            .sink(
                                    "out",
                                    dev.weir.api.sink.FileSink.<String>to(work.resolve("out")));
                    return pipeline;
                };
        job.get().run();
        writeLines(in.resolve(nameInSplit("late", 0, 2)), List.of("4", "5"));
        Files.writeString( // and a line appended to a file of split 1, read before
                in.resolve(nameInSplit("b", 1, 2)), "6\n", java.nio.file.StandardOpenOption.APPEND);

        java.io.PrintStream original = System.err;
        java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
        System.setErr(new java.io.PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            job.get().run();
        } finally {
            System.setErr(original);
        }
        String log = captured.toString(StandardCharsets.UTF_8);
        original.print(log);

        assertThat(dev.weir.api.sink.FileSink.readCommitted(work.resolve("out")))
                .containsExactlyInAnyOrder("1", "2", "3");
        assertThat(log)
                .contains("source split 'files-0-of-2' had ended in the restored checkpoint")
                .contains("Sources.filesWatching")
                .contains("source split 'files-1-of-2' had ended in the restored checkpoint");
    }

    /**
     * A file being read when the checkpoint was taken, then truncated or replaced before the
     * restore: a warning names it, and no torn rest of a line is emitted (before, a shorter file's
     * rest was skipped without a word, and a replaced one was read on from mid-line).
     */
    @Test
    void aFileTruncatedOrReplacedSinceTheCheckpointIsNamedAndNoTornLineIsRead() throws Exception {
        Path dir = Files.createDirectories(temp.resolve("changed"));
        writeLines(dir.resolve("a.txt"), List.of("alpha-1", "alpha-2", "alpha-3", "alpha-4"));
        writeLines(dir.resolve("b.txt"), List.of("beta"));
        Source<String> source = Sources.files(dir, 1);
        String split = source.splits(1).get(0);
        Taken taken = readAndSnapshot(source, split, 2);
        assertThat(taken.read()).containsExactly("alpha-1", "alpha-2");
        long position = taken.position();
        byte[] state = taken.state();

        // Deleted: every restart would restore the same checkpoint, so it fails at once.
        Path kept = Files.move(dir.resolve("a.txt"), temp.resolve("a.txt.kept"));
        try (var reader = source.openReader(split, CONTEXT)) {
            Assertions.assertThatThrownBy(() -> reader.restoreState(state))
                    .isInstanceOf(dev.weir.api.UnrecoverableException.class)
                    .hasMessageContaining("a.txt was being read at the checkpoint but is gone");
        }
        Files.move(kept, dir.resolve("a.txt"));

        // Replaced by a longer file whose lines do not end where the old ones did.
        writeLines(dir.resolve("a.txt"), List.of("a-much-longer-first-line", "next", "last"));
        assertThat(restoredAndReadToTheEnd(source, split, state, position))
                .containsExactly("next", "last", "beta");
        // Truncated below the position.
        writeLines(dir.resolve("a.txt"), List.of("a"));
        assertThat(restoredAndReadToTheEnd(source, split, state, position)).containsExactly("beta");
        // Replaced by a file whose lines end where the old ones did (an edit, as sed -i makes).
        writeLines(dir.resolve("a.txt"), List.of("alpha-1", "ALPHA-2", "alpha-3", "alpha-4"));
        assertThat(restoredAndReadToTheEnd(source, split, state, position))
                .containsExactly("alpha-3", "alpha-4", "beta");
    }

    /** The same file, written again byte for byte, is restored without a warning. */
    @Test
    void aFileUnchangedSinceTheCheckpointIsRestoredWithoutAWarning() throws Exception {
        Path dir = Files.createDirectories(temp.resolve("unchanged"));
        List<String> lines = new java.util.ArrayList<>();
        for (int i = 0; i < 20_000; i++) { // more than the 64 KiB the fingerprint covers
            lines.add("line-" + i);
        }
        writeLines(dir.resolve("a.txt"), lines);
        Source<String> source = Sources.files(dir, 1);
        String split = source.splits(1).get(0);
        Taken taken = readAndSnapshot(source, split, 15_000);
        writeLines(dir.resolve("a.txt"), lines);

        StringBuilder log = new StringBuilder();
        assertThat(restored(source, split, taken.state(), taken.position(), log))
                .isEqualTo(lines.subList(15_000, 20_000));
        assertThat(log).doesNotContain("a.txt");
    }

    /**
     * Bytes that are not UTF-8 become U+FFFD, as before, but no longer without a word: a warning
     * names the file, once; a U+FFFD the file really holds (valid UTF-8) warns nothing.
     */
    @Test
    void bytesThatAreNotUtf8AreNamedOncePerFile() throws Exception {
        Path dir = Files.createTempDirectory("files-not-utf8");
        java.io.ByteArrayOutputStream latin1 = new java.io.ByteArrayOutputStream();
        latin1.writeBytes("plain\ncaf".getBytes(StandardCharsets.US_ASCII));
        latin1.write(0xe9); // é in ISO-8859-1
        latin1.writeBytes("\nna".getBytes(StandardCharsets.US_ASCII));
        latin1.write(0xef);
        latin1.writeBytes("ve\n".getBytes(StandardCharsets.US_ASCII));
        Files.write(dir.resolve("latin1.txt"), latin1.toByteArray());
        writeLines(dir.resolve("real.txt"), List.of("a real \uFFFD"));
        Source<String> source = Sources.files(dir, 1);

        java.io.PrintStream original = System.err;
        java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
        System.setErr(new java.io.PrintStream(captured, true, StandardCharsets.UTF_8));
        List<String> read = new java.util.ArrayList<>();
        try (var reader = source.openReader(source.splits(1).get(0), CONTEXT)) {
            while (reader.poll(read::add, 10) != dev.weir.api.source.ReadStatus.END_OF_INPUT) {
                assertThat(read.size()).isLessThan(100);
            }
        } finally {
            System.setErr(original);
        }
        assertThat(read).containsExactly("plain", "caf\uFFFD", "na\uFFFDve", "a real \uFFFD");
        String log = captured.toString(StandardCharsets.UTF_8);
        assertThat(log)
                .contains("latin1.txt holds bytes that are not UTF-8, first in the line at byte 6")
                .doesNotContain("real.txt");
        assertThat(log.split("not UTF-8", -1)).as("warnings").hasSize(2);
    }

    /** What a reader of a split read, and its position and state after it. */
    private record Taken(List<String> read, long position, byte[] state) {}

    /** Reads {@code lines} lines of {@code split}, then takes its position and state. */
    private static Taken readAndSnapshot(Source<String> source, String split, int lines)
            throws Exception {
        try (var reader = source.openReader(split, CONTEXT)) {
            List<String> read = new java.util.ArrayList<>();
            while (read.size() < lines) {
                reader.poll(read::add, lines - read.size());
            }
            return new Taken(read, reader.position(), reader.snapshotState());
        }
    }

    /** The lines of {@code split} restored and read to its end; a warning names a.txt. */
    private List<String> restoredAndReadToTheEnd(
            Source<String> source, String split, byte[] state, long position) throws Exception {
        StringBuilder log = new StringBuilder();
        List<String> read = restored(source, split, state, position, log);
        assertThat(log).contains("a.txt").contains("truncated or replaced since the checkpoint");
        return read;
    }

    /**
     * The lines of {@code split} restored from {@code state} and {@code position} and read to its
     * end; what it printed on standard error (its warnings) is appended to {@code log}.
     */
    private List<String> restored(
            Source<String> source, String split, byte[] state, long position, StringBuilder log)
            throws Exception {
        java.io.PrintStream original = System.err;
        java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
        System.setErr(new java.io.PrintStream(captured, true, StandardCharsets.UTF_8));
        List<String> read = new java.util.ArrayList<>();
        try (var reader = source.openReader(split, CONTEXT)) {
            reader.restoreState(state);
            reader.seek(position);
            while (reader.poll(read::add, 1_000) != dev.weir.api.source.ReadStatus.END_OF_INPUT) {
                assertThat(read.size()).isLessThan(100_000);
            }
        } finally {
            System.setErr(original);
        }
        log.append(captured.toString(StandardCharsets.UTF_8));
        return read;
    }
}
