package dev.weir.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.api.log.DurableLog;
import dev.weir.api.log.LogOptions;
import dev.weir.api.log.LogOptions.FsyncPolicy;
import dev.weir.api.log.LogRecord;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LogCommandTest {
    @TempDir Path dir;

    String run(String stdin, String... args) {
        String[] outAndErr = run(0, stdin, args);
        return outAndErr[0];
    }

    /** Runs the command expecting {@code status}; returns standard output and standard error. */
    String[] run(int status, String stdin, String... args) {
        return run(status, stdin.getBytes(StandardCharsets.UTF_8), args);
    }

    /** Runs the command on {@code stdin} as bytes, expecting {@code status}. */
    String[] run(int status, byte[] stdin, String... args) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        ByteArrayOutputStream errors = new ByteArrayOutputStream();
        InputStream originalIn = System.in;
        PrintStream originalOut = System.out;
        PrintStream originalErr = System.err;
        try {
            System.setIn(new ByteArrayInputStream(stdin));
            System.setOut(new PrintStream(bytes, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(errors, true, StandardCharsets.UTF_8));
            assertThat(WeirCli.commandLine().execute(args)).isEqualTo(status);
        } finally {
            System.setIn(originalIn);
            System.setOut(originalOut);
            System.setErr(originalErr);
        }
        return new String[] {
            bytes.toString(StandardCharsets.UTF_8), errors.toString(StandardCharsets.UTF_8)
        };
    }

    @Test
    void createAppendTailAndOffsetsRoundTripLinesFromStandardInput() {
        String d = dir.toString();
        assertThat(run("", "log", "--dir", d, "create", "events", "--partitions", "2"))
                .contains("topic events has 2 partition(s)");
        assertThat(
                        run(
                                "alpha\nbeta\ngamma\n",
                                "log",
                                "--dir",
                                d,
                                "append",
                                "events",
                                "--partition",
                                "1"))
                .contains("appended 3 record(s) to events-1 at offsets 0..2");
        assertThat(run("", "log", "--dir", d, "tail", "events", "--partition", "1", "--from", "1"))
                .isEqualTo("1\tbeta\n2\tgamma\n");
        assertThat(run("", "log", "--dir", d, "offsets", "events"))
                .isEqualTo("events-0 start=0 end=0\nevents-1 start=0 end=3\n");
    }

    @Test
    void tailPrintsCommittedRecordsOnlyAndMarkersOnRequest() throws Exception {
        Path live = dir.resolve("live");
        Path log = dir.resolve("log");
        try (DurableLog durable =
                DurableLog.open(live, LogOptions.defaults().withFsync(FsyncPolicy.NEVER))) {
            durable.createTopic("events", 1);
            durable.append("events", 0, List.of(bytes("plain")));
            durable.appendTransaction("events", 0, List.of(bytes("x"), bytes("y")), 7);
            durable.flush();
            durable.appendTransaction("events", 0, List.of(bytes("lost")), 8);
            copyTree(live, log); // a crash before transaction 8 was forced ...
        }
        Path segment = log.resolve("events").resolve("0").resolve(String.format("%020d.log", 0));
        try (RandomAccessFile file = new RandomAccessFile(segment.toFile(), "rw")) {
            file.setLength(file.length() - 5); // ... tore its COMMIT
        }
        // The next writer's open recovers the partition; until then a reader (tail takes no lock)
        // shows only what was forced.
        try (DurableLog writer = DurableLog.open(log, LogOptions.defaults())) {
            assertThat(writer.endOffset("events", 0)).isEqualTo(7);
        }
        String d = log.toString();
        assertThat(run("", "log", "--dir", d, "tail", "events", "--from", "0"))
                .isEqualTo("0\tplain\n2\tx\n3\ty\n");
        assertThat(run("", "log", "--dir", d, "tail", "events", "--from", "0", "--show-markers"))
                .isEqualTo(
                        "0\tplain\n"
                                + "1\t[BEGIN transaction 7]\n"
                                + "2\tx\n"
                                + "3\ty\n"
                                + "4\t[COMMIT transaction 7]\n"
                                + "5\t[BEGIN transaction 8]\n"
                                + "6\t[uncommitted, transaction 8]\tlost\n");
    }

    @Test
    void aTopicNameThatLeavesTheLogDirectoryIsRefused() {
        Path a = dir.resolve("A");
        Path b = dir.resolve("B");
        run("", "log", "--dir", a.toString(), "create", "victim");
        run("kept\n", "log", "--dir", a.toString(), "append", "victim");
        run("", "log", "--dir", b.toString(), "create", "t");
        for (String name : List.of("../A/victim", "..", ".", "/tmp/x", "a/b")) {
            // A usage error (status 2), as for any other argument the command cannot take.
            String[] outAndErr = run(2, "evil\n", "log", "--dir", b.toString(), "append", name);
            assertThat(outAndErr[1])
                    .startsWith("weir log append: topic name")
                    .contains("not allowed")
                    .endsWith("(see 'weir log append --help')\n")
                    .hasLineCount(1);
            assertThat(run(2, "", "log", "--dir", b.toString(), "append", name)[1])
                    .as("refused before any input is read")
                    .contains("not allowed");
            assertThat(run(2, "", "log", "--dir", b.toString(), "create", name)[1])
                    .contains("not allowed");
            assertThat(run(2, "", "log", "--dir", b.toString(), "tail", name)[1])
                    .contains("not allowed");
            assertThat(run(2, "", "log", "--dir", b.toString(), "offsets", name)[1])
                    .contains("not allowed");
        }
        assertThat(run("", "log", "--dir", a.toString(), "tail", "victim")).isEqualTo("0\tkept\n");
        assertThat(dir.resolve("x")).doesNotExist();
    }

    @Test
    void appendStoresTheBytesBetweenLineFeedsAsTheyAre() {
        Path log = dir.resolve("log");
        String d = log.toString();
        run("", "log", "--dir", d, "create", "raw");
        byte[] notUtf8 = {(byte) 0xff, 'x', (byte) 0xc3, (byte) 0x28, (byte) 0x80};
        java.io.ByteArrayOutputStream input = new java.io.ByteArrayOutputStream();
        input.writeBytes(notUtf8);
        input.writeBytes(bytes("\na\rb\ncrlf\r\n\n\r\rmid\r\r\nlast"));
        assertThat(run(0, input.toByteArray(), "log", "--dir", d, "append", "raw")[0])
                .isEqualTo("appended 6 record(s) to raw-0 at offsets 0..5\n");

        try (DurableLog read = DurableLog.openReadOnly(log, LogOptions.defaults())) {
            assertThat(read.read("raw", 0, 0, 100))
                    .extracting(LogRecord::payload)
                    .containsExactly(
                            notUtf8,
                            bytes("a\rb"),
                            bytes("crlf"),
                            bytes(""),
                            bytes("\r\rmid\r"),
                            bytes("last"));
        }
        // tail prints each record's bytes as stored: the carriage returns inside come back.
        assertThat(run("", "log", "--dir", d, "tail", "raw"))
                .contains("1\ta\rb\n")
                .contains("4\t\r\rmid\r\n")
                .endsWith("5\tlast\n");
    }

    /**
     * {@code --codec string} writes lines as {@code Codecs.STRING} records, which a job reads with
     * {@code Sources.log(dir, topic, Codecs.STRING)}: raw lines failed there (a breaker's find).
     */
    @Test
    void appendWithTheStringCodecFeedsAJobReadingTheTopicAsStrings() throws Exception {
        Path log = dir.resolve("log");
        String d = log.toString();
        run("", "log", "--dir", d, "create", "words");
        assertThat(
                        run(
                                "héllo\r\nwörld\n\nlast",
                                "log",
                                "--dir",
                                d,
                                "append",
                                "words",
                                "--codec",
                                "string"))
                .isEqualTo("appended 4 record(s) to words-0 at offsets 0..3\n");

        dev.weir.api.sink.CollectSink<String> sink = dev.weir.api.sink.Sinks.collect();
        dev.weir.api.Pipeline pipeline = dev.weir.api.Pipeline.create("read-words");
        pipeline.source(
                        "words",
                        dev.weir.api.source.Sources.log(
                                log, "words", dev.weir.api.codec.Codecs.STRING))
                .sink("out", sink);
        pipeline.run();
        assertThat(sink.results()).containsExactlyInAnyOrder("héllo", "wörld", "", "last");

        assertThat(run("", "log", "--dir", d, "tail", "words", "--codec", "string"))
                .isEqualTo("0\théllo\n1\twörld\n2\t\n3\tlast\n");

        // Input that is not UTF-8 is refused, naming the line; nothing of it is appended.
        byte[] bad = {'o', 'k', '\n', (byte) 0xff, 'x', '\n'};
        String[] refused = run(1, bad, "log", "--dir", d, "append", "words", "--codec", "string");
        assertThat(refused[1])
                .contains("input line 2 is not UTF-8")
                .contains("--codec raw")
                .contains("the first 0 input line(s) were appended");
        assertThat(run("", "log", "--dir", d, "offsets", "words"))
                .isEqualTo("words-0 start=0 end=4\n");

        // A raw record is not a string record: tail says so, naming its offset.
        run("raw line\n", "log", "--dir", d, "append", "words");
        assertThat(run(1, "", "log", "--dir", d, "tail", "words", "--codec", "string")[1])
                .contains("the record at offset 4 (8 bytes) is not a Codecs.STRING record")
                .contains("--codec raw");
    }

    @Test
    void appendCutsRecordsAcrossItsReadBuffer() throws Exception {
        StringBuilder text = new StringBuilder();
        List<String> expected = new java.util.ArrayList<>();
        for (int i = 0; i < 20_000; i++) {
            String line = "record " + i + " " + "x".repeat(i % 97);
            expected.add(line);
            text.append(line).append(i % 3 == 0 ? "\r\n" : "\n");
        }
        LogCommand.Lines lines =
                new LogCommand.Lines(new ByteArrayInputStream(bytes(text.toString())));
        List<String> read = new java.util.ArrayList<>();
        byte[] record;
        while ((record = lines.next()) != null) {
            read.add(new String(record, StandardCharsets.UTF_8));
        }
        assertThat(read).isEqualTo(expected);
        assertThat(lines.consumed()).isEqualTo(bytes(text.toString()).length);
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> paths = Files.walk(from)) {
            for (Path path : paths.toList()) {
                Path target = to.resolve(from.relativize(path).toString());
                if (Files.isDirectory(path)) {
                    Files.createDirectories(target);
                } else if (!path.getFileName().toString().equals(".lock")) {
                    Files.copy(path, target, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
    }

    @Test
    void topicsListsEveryTopicWithItsPartitionsAndOffsets() {
        String d = dir.resolve("log").toString();
        run("", "log", "--dir", d, "create", "orders", "--partitions", "2");
        run("", "log", "--dir", d, "create", "audit");
        run("a\nb\nc\n", "log", "--dir", d, "append", "orders", "--partition", "1");
        String expected =
                "audit partitions=1 offsets=0 ranges=0..0\n"
                        + "orders partitions=2 offsets=3 ranges=0..0,0..3\n";
        assertThat(run("", "log", "topics", d)).isEqualTo(expected);
        assertThat(run("", "log", "--dir", d, "topics")).isEqualTo(expected);
        assertThat(run(1, "", "log", "topics", dir.resolve("none").toString())[1])
                .isEqualTo("weir log topics: no log directory " + dir.resolve("none") + "\n");
        assertThat(dir.resolve("none")).doesNotExist();
    }

    @Test
    void topicsOfADirectoryThatIsNoLogSaysSoOnStandardError() throws IOException {
        Path empty = Files.createDirectories(dir.resolve("empty"));
        assertThat(run(0, "", "log", "topics", empty.toString()))
                .containsExactly("no topics in " + empty + "\n", "");

        Path etc = Files.createDirectories(dir.resolve("etc"));
        Files.writeString(etc.resolve("hosts"), "127.0.0.1 localhost\n");
        Files.createDirectories(etc.resolve("ssh"));
        assertThat(run(0, "", "log", "topics", etc.toString()))
                .containsExactly(
                        "no topics in " + etc + "\n",
                        "weir log topics: note: "
                                + etc
                                + " holds no topic but 2 other entries; is it a Weir log"
                                + " directory?\n");
    }

    @Test
    void tailFollowPrintsRecordsCommittedAfterItStartedAndEndsAtMax() throws Exception {
        Path log = dir.resolve("log");
        LineWatcher out = new LineWatcher();
        ExecutorService tail = Executors.newSingleThreadExecutor();
        try (DurableLog writer = DurableLog.open(log, LogOptions.defaults())) {
            writer.createTopic("events", 1);
            writer.append("events", 0, List.of(bytes("before")));
            Future<Cli.Result> following =
                    tail.submit(
                            () ->
                                    Cli.run(
                                            "",
                                            out,
                                            "log",
                                            "--dir",
                                            log.toString(),
                                            "tail",
                                            "events",
                                            "--follow",
                                            "--poll-ms",
                                            "5",
                                            "--max",
                                            "4"));
            out.awaitLines(1);
            writer.append("events", 0, List.of(bytes("after-1")));
            writer.appendTransaction("events", 0, List.of(bytes("tx-1"), bytes("tx-2")), 1);
            assertThat(following.get(60, TimeUnit.SECONDS).status()).isZero();
        } finally {
            tail.shutdownNow();
        }
        assertThat(out.text()).isEqualTo("0\tbefore\n1\tafter-1\n3\ttx-1\n4\ttx-2\n");
    }

    @Test
    void tailFollowRefusesMarkers() {
        assertThat(run(2, "", "log", "tail", "t", "--follow", "--show-markers")[1])
                .contains("--follow prints committed records only")
                .hasLineCount(1);
    }

    /** Standard output that tells a waiting test how many lines were printed. */
    static final class LineWatcher extends java.io.OutputStream {
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        private int lines;

        @Override
        public synchronized void write(int b) {
            bytes.write(b);
            if (b == '\n') {
                lines++;
                notifyAll();
            }
        }

        synchronized void awaitLines(int count) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (lines < count) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new AssertionError("no " + count + " line(s) in: " + text());
                }
                TimeUnit.NANOSECONDS.timedWait(this, left);
            }
        }

        synchronized String text() {
            return bytes.toString(StandardCharsets.UTF_8);
        }
    }
}
