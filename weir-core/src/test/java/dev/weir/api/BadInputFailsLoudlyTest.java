package dev.weir.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.api.checkpoint.CheckpointConfig;
import dev.weir.api.checkpoint.CheckpointFailedException;
import dev.weir.api.codec.Codec;
import dev.weir.api.codec.Codecs;
import dev.weir.api.sink.CollectSink;
import dev.weir.api.sink.FileSink;
import dev.weir.api.sink.Sinks;
import dev.weir.api.source.Sources;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 12, items 2 and 5: a key, a state value or a record that Weir cannot checkpoint or carry
 * fails the job at the first such record, naming the step, the type and the fix, instead of
 * aborting every checkpoint while the job runs on without exactly-once.
 */
class BadInputFailsLoudlyTest {
    @TempDir Path dir;

    enum Color {
        RED,
        GREEN,
        BLUE
    }

    record Reading(String sensor, Instant at) {}

    /** A key class whose hash is its identity: a different key group in every JVM. */
    static final class Opaque {
        final int id;

        Opaque(int id) {
            this.id = id;
        }
    }

    /** Not a record and not a type Codecs.auto() knows. */
    static final class Pojo {
        final long n;

        Pojo(long n) {
            this.n = n;
        }
    }

    private Pipeline checkpointed(String name) {
        return checkpointed(name, dir.resolve("chk"));
    }

    /** Like {@link #checkpointed(String)}, with checkpoints of its own: a second job of a test. */
    private Pipeline checkpointedApart(String name) {
        return checkpointed(name, dir.resolve("chk-" + name));
    }

    private static Pipeline checkpointed(String name, Path checkpoints) {
        return Pipeline.create(name)
                .parallelism(2)
                .checkpointing(CheckpointConfig.exactlyOnce(Duration.ofMillis(5), checkpoints))
                .restartStrategy(RestartStrategy.fixedDelay(5, Duration.ZERO));
    }

    /** A log in {@code dir/name} whose one-partition topic "lines" holds {@code records}. */
    private Path logHolding(String name, byte[]... records) {
        Path log = dir.resolve(name);
        try (dev.weir.api.log.DurableLog durable =
                dev.weir.api.log.DurableLog.open(log, dev.weir.api.log.LogOptions.defaults())) {
            durable.createTopic("lines", 1);
            durable.append("lines", 0, List.of(records));
        }
        return log;
    }

    /**
     * A failure whose causes form a loop (a caused by b, b by a) fails the job with that failure
     * after its restarts, as any other; it used to hang the job (the check for failures a restart
     * cannot fix walked the loop forever).
     */
    @Test
    @org.junit.jupiter.api.Timeout(120)
    void aFailureWhoseCausesFormALoopFailsTheJob() {
        Pipeline pipeline = checkpointed("cause-loop");
        pipeline.source("n", Sources.sequence(1, 100))
                .map(
                        n -> {
                            if (n == 50) {
                                RuntimeException a = new RuntimeException("A");
                                RuntimeException b = new RuntimeException("B");
                                a.initCause(b);
                                b.initCause(a);
                                throw a;
                            }
                            return n;
                        })
                .sink("out", Sinks.collect());

        assertThatThrownBy(pipeline::run)
                .isInstanceOf(JobFailedException.class)
                .hasMessageContaining("RuntimeException: A");
        assertThat(UnrecoverableException.isUnrecoverable(loop())).isFalse();
        UnrecoverableException unrecoverable = new UnrecoverableException("fix it", loop());
        assertThat(UnrecoverableException.isUnrecoverable(unrecoverable)).isTrue();
    }

    /**
     * Weir's failures serialise, as a cluster (Flink) sends a task's failure to its JobManager: a
     * CheckpointCorruptedException used to hold a Path, which does not.
     */
    @Test
    void weirsFailuresSerialise() throws Exception {
        dev.weir.api.checkpoint.CheckpointCorruptedException corrupt =
                new dev.weir.api.checkpoint.CheckpointCorruptedException(
                        Path.of("/chk/chk-7/_manifest"), "checksum mismatch");
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        try (java.io.ObjectOutputStream out = new java.io.ObjectOutputStream(bytes)) {
            out.writeObject(corrupt);
            out.writeObject(new UnrecoverableException("fix it", new IOException("disk")));
        }
        try (java.io.ObjectInputStream in =
                new java.io.ObjectInputStream(
                        new java.io.ByteArrayInputStream(bytes.toByteArray()))) {
            assertThat(
                            ((dev.weir.api.checkpoint.CheckpointCorruptedException) in.readObject())
                                    .file())
                    .isEqualTo(Path.of("/chk/chk-7/_manifest"));
            assertThat((Throwable) in.readObject())
                    .hasMessage("fix it")
                    .hasCauseInstanceOf(IOException.class);
        }
    }

    private static RuntimeException loop() {
        RuntimeException a = new RuntimeException("A");
        RuntimeException b = new RuntimeException("B");
        a.initCause(b);
        b.initCause(a);
        return a;
    }

    @Test
    void enumKeysAreCheckpointedAndRestoredByName() throws Exception {
        Pipeline pipeline = checkpointed("enum-keys");
        CollectSink<Long> sink = Sinks.collect();
        pipeline.source("n", Sources.sequence(1, 3000))
                .keyBy(n -> Color.values()[(int) (n % 3)])
                .reduce("sum", Long::sum)
                .sink("out", sink);
        JobResult result = pipeline.run();
        assertThat(result.restarts()).isZero();
        assertThat(sink.results()).hasSize(3000);
        Map<Object, Long> sums =
                dev.weir.api.checkpoint.CheckpointView.open(newestCheckpoint())
                        .valueState("sum", "value", Codecs.auto());
        assertThat(sums).containsOnlyKeys(Color.RED, Color.GREEN, Color.BLUE);
        assertThat(sums.values().stream().mapToLong(Long::longValue).sum())
                .isEqualTo(3000L * 3001 / 2);
    }

    @Test
    void anEnumHashesByNameSoItsKeyGroupIsTheSameInEveryJvm() {
        for (Color color : Color.values()) {
            assertThat(dev.weir.api.state.KeyGroups.stableHash(color))
                    .isEqualTo(color.name().hashCode());
        }
        record Holder(Color color, long n) {}
        assertThat(dev.weir.api.state.KeyGroups.stableHash(new Holder(Color.RED, 7)))
                .isEqualTo(31 * Color.RED.name().hashCode() + Long.hashCode(7));
        record Plain(String s, long n) {}
        Plain plain = new Plain("a", 2);
        assertThat(dev.weir.api.state.KeyGroups.stableHash(plain)).isEqualTo(plain.hashCode());
    }

    @Test
    void aRecordKeyHoldingAnInstantIsCheckpointed() throws Exception {
        Pipeline pipeline = checkpointed("instant-keys");
        CollectSink<Long> sink = Sinks.collect();
        pipeline.source("n", Sources.sequence(1, 2000))
                .keyBy(n -> new Reading("s" + (n % 4), Instant.ofEpochSecond(n % 2)))
                .reduce("sum", Long::sum)
                .sink("out", sink);
        assertThat(pipeline.run().restarts()).isZero();
        assertThat(newestCheckpoint()).isNotNull();
    }

    @Test
    void aKeyThatHashesByIdentityFailsAtTheFirstRecordNamingTheStep() {
        Pipeline pipeline = checkpointed("identity-keys");
        pipeline.source("n", Sources.sequence(1, 100))
                .keyBy(n -> new Opaque((int) (n % 3)))
                .reduce("count", Long::sum)
                .sink("out", Sinks.counting());
        assertThatThrownBy(pipeline::run)
                .isInstanceOf(JobFailedException.class)
                .cause()
                .isInstanceOf(UnrecoverableException.class)
                .hasMessageContaining("step 'count'")
                .hasMessageContaining(Opaque.class.getName())
                .hasMessageContaining("hashes by identity");
    }

    /**
     * A log record its source's codec cannot read (raw line bytes, as {@code weir log append}
     * writes them, read with Codecs.STRING) fails the job at once, naming the topic, partition and
     * offset: before, the message named none of them, and the job restarted on it again and again.
     */
    @Test
    void aLogRecordItsCodecCannotReadFailsAtOnceNamingWhereItIs() {
        Path log =
                logHolding(
                        "log",
                        Codecs.STRING.toBytes("fine"),
                        "hello".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        Pipeline pipeline = checkpointed("raw-lines");
        pipeline.source("lines", Sources.log(log, "lines", Codecs.STRING))
                .sink("out", Sinks.counting());
        assertThatThrownBy(pipeline::run)
                .isInstanceOf(JobFailedException.class)
                .cause()
                .isInstanceOf(UnrecoverableException.class)
                .hasMessageContaining("log topic 'lines' partition 0")
                .hasMessageContaining("the record at offset 1 (5 bytes)")
                .hasMessageContaining("weir log append");
    }

    /** A files source on a directory that is not there: a restart would not make it appear. */
    @Test
    void aFilesSourceOnADirectoryThatDoesNotExistFailsAtOnce() {
        Pipeline pipeline = checkpointed("no-directory");
        pipeline.source("lines", Sources.files(dir.resolve("nowhere")))
                .sink("out", Sinks.counting());
        assertThatThrownBy(pipeline::run)
                .isInstanceOf(JobFailedException.class)
                .cause()
                .isInstanceOf(UnrecoverableException.class)
                .hasMessageContaining(dir.resolve("nowhere") + " does not exist")
                .hasMessageContaining("create it or fix the path");
    }

    /** A files source on a file, and a log sink on a topic that does not exist: no restarts. */
    @Test
    void aFilesSourceOnAFileAndALogSinkWithoutItsTopicFailAtOnce() throws Exception {
        Path file = Files.writeString(dir.resolve("input.txt"), "a\n");
        Pipeline onAFile = checkpointed("on-a-file");
        onAFile.source("lines", Sources.files(file)).sink("out", Sinks.counting());
        assertThatThrownBy(onAFile::run)
                .isInstanceOf(JobFailedException.class)
                .cause()
                .isInstanceOf(UnrecoverableException.class)
                .hasMessageContaining(file + " is a file, not a directory");

        Path log = dir.resolve("log");
        dev.weir.api.log.DurableLog.open(log, dev.weir.api.log.LogOptions.defaults()).close();
        Pipeline noTopic = checkpointedApart("no-topic").parallelism(1);
        noTopic.source("n", Sources.sequence(1, 10))
                .sink("out", dev.weir.api.sink.LogSink.to(log, "missing", Codecs.LONG));
        assertThatThrownBy(noTopic::run)
                .isInstanceOf(JobFailedException.class)
                .hasStackTraceContaining(UnrecoverableException.class.getName())
                .hasStackTraceContaining("has no topic 'missing' for sink 'out'; create it first");
    }

    /** Refuses the record 7, counting how often it was asked to write it. */
    static final class RefusesSeven implements dev.weir.api.sink.RecordFormat<Long> {
        private static final long serialVersionUID = 1L;
        static final java.util.concurrent.atomic.AtomicInteger ASKED =
                new java.util.concurrent.atomic.AtomicInteger();

        @Override
        public String suffix() {
            return ".txt";
        }

        @Override
        public String format(Long n) {
            if (n == 7) {
                ASKED.incrementAndGet();
                throw new IllegalArgumentException("seven is refused");
            }
            return n.toString();
        }
    }

    /**
     * A record the file sink's format cannot write comes again after every restart: the job fails
     * at the first refusal, naming it, instead of spending its restart budget (5 here) on it.
     */
    @Test
    void aRecordTheFileSinksFormatRefusesFailsTheJobWithoutARestart() throws Exception {
        RefusesSeven.ASKED.set(0);
        Pipeline pipeline = checkpointed("refused").parallelism(1);
        pipeline.source("n", Sources.sequence(1, 100))
                .sink("out", FileSink.<Long>to(dir.resolve("out")).format(new RefusesSeven()));
        assertThatThrownBy(pipeline::run)
                .isInstanceOf(JobFailedException.class)
                .hasStackTraceContaining("file sink in " + dir.resolve("out"))
                .hasStackTraceContaining("cannot write a record: seven is refused");
        assertThat(RefusesSeven.ASKED).as("attempts to write the refused record").hasValue(1);
        assertThat(FileSink.readCommitted(dir.resolve("out"))).doesNotContain("7");
    }

    /**
     * A record its codec reads without an error but not to its end (a length prefix that fits by
     * chance, a codec of the wrong type) fails naming it: before, the job took the wrong value.
     */
    @Test
    void aLogRecordItsCodecDoesNotReadToItsEndFailsAtOnce() throws Exception {
        Path log =
                logHolding(
                        "log",
                        Codecs.STRING.toBytes("fine"),
                        new byte[] {0, 0, 0, 1, 'a', 'b', 'c'});
        Pipeline pipeline = checkpointed("short-read");
        pipeline.source("lines", Sources.log(log, "lines", Codecs.STRING))
                .sink("out", Sinks.counting());
        assertThatThrownBy(pipeline::run)
                .isInstanceOf(JobFailedException.class)
                .cause()
                .isInstanceOf(UnrecoverableException.class)
                .hasMessageContaining("the record at offset 1 (7 bytes)")
                .hasMessageContaining("weir.string")
                .hasMessageContaining("the codec read 5 of them and left 2 unread");

        // A codec of the user's may leave bytes unread on purpose (a newer writer's extra field).
        Path padded = logHolding("padded", new byte[] {0, 0, 0, 7, 1, 2, 3});
        CollectSink<Integer> firstInts = Sinks.collect();
        Pipeline lenient = checkpointedApart("lenient").parallelism(1);
        lenient.source("ints", Sources.log(padded, "lines", new FirstIntOnly()))
                .sink("out", firstInts);
        lenient.run();
        assertThat(firstInts.results()).containsExactly(7);
    }

    /** A user's codec that reads an int and leaves the rest of the record unread. */
    static final class FirstIntOnly implements Codec<Integer> {
        private static final long serialVersionUID = 1L;

        @Override
        public void encode(Integer value, DataOutput out) throws IOException {
            out.writeInt(value);
        }

        @Override
        public Integer decode(DataInput in) throws IOException {
            return in.readInt();
        }
    }

    /**
     * The default LINES format writes one record per line: a record holding a line feed would read
     * back as two, so it fails the job naming the fix; a lone carriage return, which the files
     * source passes on inside a line, reads back as it was (before, {@code readCommitted} split at
     * it). A breaker found 7 records read back for 5 written.
     */
    @Test
    void theLinesFormatRefusesALineFeedAndALoneCarriageReturnReadsBackInItsRecord()
            throws Exception {
        Files.createDirectories(dir.resolve("in"));
        Files.writeString(dir.resolve("in/a.txt"), "one\r\ntwo\rTWO\nthree");
        Pipeline copy = checkpointed("lone-cr").parallelism(1);
        copy.source("lines", Sources.files(dir.resolve("in")))
                .sink("out", FileSink.<String>to(dir.resolve("copied")));
        copy.run();
        assertThat(FileSink.readCommitted(dir.resolve("copied")))
                .containsExactlyInAnyOrder("one", "two\rTWO", "three");

        Pipeline multiLine = checkpointedApart("line-feed").parallelism(1);
        multiLine
                .source("records", Sources.collection(List.of("fine", "two\nlines", "after")))
                .sink("out", FileSink.<String>to(dir.resolve("refused")));
        assertThatThrownBy(multiLine::run)
                .isInstanceOf(JobFailedException.class)
                .hasStackTraceContaining("LINES format writes one record per line")
                .hasStackTraceContaining("two\\nlines")
                .hasStackTraceContaining("JsonLinesFormat");
        assertThat(FileSink.readCommitted(dir.resolve("refused"))).doesNotContain("two", "lines");
    }

    /** A record key holding an array: its equals and hashCode use the array's identity. */
    record Bytes(byte[] id) {}

    /** A record key holding a value of a class without its own hashCode. */
    record Wrapped(Opaque inner) {}

    @Test
    void aRecordKeyHoldingAnArrayOrAnIdentityHashedValueIsRefusedToo() {
        assertThatThrownBy(() -> dev.weir.api.state.KeyGroups.checkKey(new Bytes(new byte[] {1})))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(Bytes.class.getName())
                .hasMessageContaining("hashes by identity");
        assertThatThrownBy(() -> dev.weir.api.state.KeyGroups.checkKey(new Wrapped(new Opaque(1))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("hashes by identity");
    }

    @Test
    void aKeyTheCheckpointCodecCannotWriteFailsAtTheFirstRecord() {
        Pipeline pipeline = checkpointed("uri-keys");
        pipeline.source("n", Sources.sequence(1, 100))
                .keyBy(n -> URI.create("http://host/" + (n % 3)))
                .reduce("count", Long::sum)
                .sink("out", Sinks.counting());
        assertThatThrownBy(pipeline::run)
                .cause()
                .isInstanceOf(UnrecoverableException.class)
                .hasMessageContaining("step 'count'")
                .hasMessageContaining("java.net.URI")
                .hasMessageContaining("Codecs.auto()");
    }

    @Test
    void aStateValueItsCodecCannotWriteFailsAtTheFirstRecordNamingStateTypeAndCodec() {
        Pipeline pipeline = checkpointed("pojo-state");
        pipeline.source("n", Sources.sequence(1, 100))
                .keyBy(n -> n % 3)
                .<Pojo, Long>process(
                        "totals",
                        Codecs.auto(),
                        (key, n, state, out) -> {
                            Pojo now = state.value();
                            state.update(new Pojo(now == null ? n : now.n + n));
                            out.collect(n);
                        })
                .sink("out", Sinks.counting());
        assertThatThrownBy(pipeline::run)
                .cause()
                .isInstanceOf(UnrecoverableException.class)
                .hasMessageContaining("state 'value' of step 'totals'")
                .hasMessageContaining(Pojo.class.getName())
                .hasMessageContaining("weir.auto");
    }

    /** Writes longs, but refuses 4242: only a checkpoint taken after it can find out. */
    static final class PickyCodec implements Codec<Long> {
        @Override
        public void encode(Long value, DataOutput out) throws IOException {
            if (value == 4242L) {
                throw new IOException("picky codec refuses 4242");
            }
            out.writeLong(value);
        }

        @Override
        public Long decode(DataInput in) throws IOException {
            return in.readLong();
        }
    }

    /** A job whose checkpoints fail from the one after {@code n} reaches 4242 on. */
    private Pipeline pickyJob() {
        Pipeline pipeline =
                Pipeline.create("picky")
                        .parallelism(1)
                        .checkpointing(
                                CheckpointConfig.exactlyOnce(
                                                Duration.ofMillis(2), dir.resolve("chk"))
                                        .withTolerableFailures(2))
                        .restartStrategy(RestartStrategy.none())
                        .requireGuarantee(Guarantee.EXACTLY_ONCE);
        pipeline.source("n", Sources.sequence(1, Long.MAX_VALUE - 1, 1, 200_000))
                .keyBy(n -> 0L)
                .<Long, Long>process(
                        "stuck",
                        new PickyCodec(),
                        (key, n, state, out) -> {
                            if (state.value() == null || state.value() != 4242L) {
                                state.update(n >= 4242 ? 4242L : n);
                            }
                            out.collect(n);
                        })
                .sink("out", FileSink.<Long>to(dir.resolve("out")));
        return pipeline;
    }

    @Test
    void checkpointsThatKeepFailingFailTheJobWithTheCauseAndLeaveNoDirectories() throws Exception {
        Pipeline pipeline = pickyJob();
        assertThatThrownBy(pipeline::run)
                .isInstanceOf(JobFailedException.class)
                .satisfies(
                        e -> {
                            assertThat(e.getCause())
                                    .isInstanceOf(CheckpointFailedException.class)
                                    .hasMessageContaining("3 checkpoints failed in a row")
                                    .hasMessageContaining("withTolerableFailures");
                            assertThat(e)
                                    .rootCause()
                                    .hasMessageContaining("picky codec refuses 4242");
                        });
        try (Stream<Path> entries = Files.list(dir.resolve("chk"))) {
            List<String> incomplete =
                    entries.filter(p -> p.getFileName().toString().startsWith("chk-"))
                            .filter(p -> !Files.exists(p.resolve("_manifest")))
                            .map(p -> p.getFileName().toString())
                            .toList();
            assertThat(incomplete).as("aborted checkpoint directories left behind").isEmpty();
        }
    }

    /**
     * On a full disk an aborted checkpoint's id cannot be recorded, so its directory must stay
     * while it is the newest (it alone keeps the id from reuse); older ones go, as a newer
     * directory keeps theirs. Before, every aborted directory stayed (a breaker saw 163 pile up in
     * 25 s on a small tmpfs).
     */
    @org.junit.jupiter.params.ParameterizedTest(name = "restarts: {0}")
    @org.junit.jupiter.params.provider.ValueSource(ints = {0, 2})
    void onAFullDiskOnlyTheNewestAbortedCheckpointDirectoryStays(int restarts) throws Exception {
        // The record's temporary name is taken: its write fails as on a full disk.
        Files.createDirectories(dir.resolve("chk/_max-aborted-id.tmp/in-the-way"));
        // With restarts, each attempt aborts checkpoints of its own: it must also delete those
        // an earlier attempt left (a breaker saw one more per attempt).
        Pipeline pipeline =
                pickyJob()
                        .restartStrategy(
                                restarts == 0
                                        ? RestartStrategy.none()
                                        : RestartStrategy.fixedDelay(restarts, Duration.ZERO));
        assertThatThrownBy(pipeline::run)
                .isInstanceOf(JobFailedException.class)
                .cause()
                .isInstanceOf(CheckpointFailedException.class)
                .hasMessageContaining("3 checkpoints failed in a row");
        List<Long> all = new java.util.ArrayList<>();
        List<Long> incomplete = new java.util.ArrayList<>();
        try (Stream<Path> entries = Files.list(dir.resolve("chk"))) {
            for (Path p : (Iterable<Path>) entries::iterator) {
                String name = p.getFileName().toString();
                if (name.startsWith("chk-")) {
                    long id = Long.parseLong(name.substring("chk-".length()));
                    all.add(id);
                    if (!Files.exists(p.resolve("_manifest"))) {
                        incomplete.add(id);
                    }
                }
            }
        }
        assertThat(incomplete)
                .as("aborted checkpoint directories left behind")
                .containsExactly(java.util.Collections.max(all));
    }

    /**
     * A checkpoint whose directory cannot be created is a failed checkpoint like any other: the job
     * fails once more than the tolerable number failed in a row, naming the cause. Before, it was
     * dropped without a word and no checkpoint ever completed again: an endless job committed
     * nothing more, and a bounded one waited forever for its final checkpoint.
     */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(booleans = {false, true})
    @org.junit.jupiter.api.Timeout(120)
    void aCheckpointDirectoryThatBecomesUnusableFailsTheJobNamingTheCause(boolean bounded)
            throws Exception {
        Path chk = dir.resolve("chk");
        Pipeline pipeline =
                Pipeline.create("unusable")
                        .parallelism(1)
                        .checkpointing(
                                CheckpointConfig.exactlyOnce(Duration.ofMillis(5), chk)
                                        .withTolerableFailures(2))
                        .restartStrategy(RestartStrategy.none());
        pipeline.source("n", Sources.sequence(1, bounded ? 20_000 : Long.MAX_VALUE - 1, 1, 10_000))
                .sink("out", FileSink.<Long>to(dir.resolve("out")));
        JobHandle job = pipeline.start();
        while (!Files.isDirectory(dir.resolve("out"))
                || FileSink.readCommitted(dir.resolve("out")).isEmpty()) {
            assertThat(job.isDone()).as("job ended before its first commit").isFalse();
            Thread.onSpinWait();
        }
        // The checkpoint directory turns into a file: no checkpoint directory can be created in
        // it (permissions would not stop a test running as root). The running job may create the
        // directory again between the two moves; then it is moved away again.
        Path blocker = Files.writeString(dir.resolve("blocker"), "not a directory");
        for (int attempt = 0; !Files.isRegularFile(chk); attempt++) {
            try {
                Files.move(chk, dir.resolve("chk-moved-" + attempt));
            } catch (java.nio.file.NoSuchFileException gone) {
                // not there at this instant: the blocker can take its place
            }
            try {
                Files.move(blocker, chk);
            } catch (java.nio.file.FileAlreadyExistsException recreated) {
                // the job made the directory again: move it away once more
            }
        }

        assertThatThrownBy(() -> job.await(Duration.ofMinutes(1)))
                .isInstanceOf(JobFailedException.class)
                .satisfies(
                        e ->
                                assertThat(e.getCause())
                                        .isInstanceOf(CheckpointFailedException.class)
                                        .hasMessageContaining("3 checkpoints failed in a row")
                                        .hasMessageContaining("creating its directory failed"));
    }

    @Test
    void aMapReturningNullFailsAtThatStepNamingIt() {
        Pipeline pipeline = Pipeline.create("nulls");
        pipeline.source("n", Sources.sequence(1, 10))
                .map(n -> n == 5 ? null : n)
                .name("maybe")
                .sink("out", FileSink.<Long>to(dir.resolve("out")));
        assertThatThrownBy(pipeline::run)
                .rootCause()
                .isInstanceOf(UnrecoverableException.class)
                .hasMessageContaining("map 'maybe' returned null for 5");
        assertThat(dir.resolve("out"))
                .satisfiesAnyOf(
                        out -> assertThat(Files.exists(out)).isFalse(),
                        out -> assertThat(FileSink.readCommitted(out)).doesNotContain("null"));
    }

    @Test
    void aFlatMapOrProcessEmittingNullFailsAtThatStepNamingIt() {
        Pipeline flat = Pipeline.create("flat-nulls");
        flat.source("n", Sources.sequence(1, 10))
                .<Long>flatMap((n, out) -> out.collect(n == 3 ? null : n))
                .name("explode")
                .sink("out", Sinks.counting());
        assertThatThrownBy(flat::run)
                .rootCause()
                .hasMessageContaining("flatMap 'explode' emitted null");

        Pipeline keyed = Pipeline.create("process-nulls");
        keyed.source("n", Sources.sequence(1, 10))
                .keyBy(n -> n % 2)
                .<Long, Long>process(
                        "emit", Codecs.LONG, (key, n, state, out) -> out.collect(n == 4 ? null : n))
                .sink("out", Sinks.counting());
        assertThatThrownBy(keyed::run)
                .rootCause()
                .hasMessageContaining("process 'emit' emitted null");
    }

    private Path newestCheckpoint() throws IOException {
        try (Stream<Path> entries = Files.list(dir.resolve("chk"))) {
            return entries.filter(p -> Files.exists(p.resolve("_manifest")))
                    .max(Path::compareTo)
                    .orElse(null);
        }
    }
}
