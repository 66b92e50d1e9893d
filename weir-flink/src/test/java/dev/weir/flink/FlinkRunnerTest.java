package dev.weir.flink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.api.JobFailedException;
import dev.weir.api.JobHandle;
import dev.weir.api.JobListener;
import dev.weir.api.JobResult;
import dev.weir.api.Pipeline;
import dev.weir.api.RestartStrategy;
import dev.weir.api.UnrecoverableException;
import dev.weir.api.checkpoint.CheckpointConfig;
import dev.weir.api.checkpoint.CheckpointStats;
import dev.weir.api.codec.Codecs;
import dev.weir.api.function.Collector;
import dev.weir.api.function.KeyedProcessFunction;
import dev.weir.api.log.DurableLog;
import dev.weir.api.log.LogOptions;
import dev.weir.api.log.LogRecord;
import dev.weir.api.plan.Runner;
import dev.weir.api.sink.FileSink;
import dev.weir.api.sink.FileTableSink;
import dev.weir.api.sink.LogSink;
import dev.weir.api.sink.Sinks;
import dev.weir.api.source.ReadStatus;
import dev.weir.api.source.Source;
import dev.weir.api.source.SourceContext;
import dev.weir.api.source.SourceReader;
import dev.weir.api.source.Sources;
import dev.weir.api.state.MapState;
import dev.weir.api.state.ValueState;
import dev.weir.api.time.WatermarkStrategy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The same Weir pipeline on Weir's runtime and on a local Flink cluster commits the same output,
 * and a failure on Flink keeps it exactly-once.
 */
class FlinkRunnerTest {
    static final int KEYS = 4;

    @TempDir Path temp;

    /** Where one run of the pipeline commits its output. */
    record Outputs(Path files, Path log, Path table) {
        List<String> tableRows() throws Exception {
            return sorted(FileTableSink.readTable(table, Codecs.STRING));
        }

        List<String> fileLines() throws Exception {
            return sorted(FileSink.readCommitted(files));
        }

        List<String> logRecords() {
            List<String> all = new ArrayList<>();
            try (DurableLog durable = DurableLog.openReadOnly(log, LogOptions.defaults())) {
                for (int p = 0; p < durable.partitions("sums"); p++) {
                    for (LogRecord r : durable.read("sums", p, 0, Integer.MAX_VALUE)) {
                        all.add(Codecs.STRING.fromBytes(r.payload()));
                    }
                }
            }
            return sorted(all);
        }
    }

    static List<String> sorted(List<String> lines) {
        List<String> copy = new ArrayList<>(lines);
        copy.sort(null);
        return copy;
    }

    /**
     * source → map(n × 10) → keyBy(n % KEYS) → running sum in a ValueState → "key:sum" to a
     * FileSink and a LogSink, exactly-once checkpoints every {@code intervalMs}.
     */
    Pipeline pipeline(
            String name,
            Source<Long> source,
            int sourceParallelism,
            Outputs out,
            long intervalMs,
            AtomicBoolean failOnce,
            AtomicBoolean checkpointed) {
        try (DurableLog durable = DurableLog.open(out.log(), LogOptions.defaults())) {
            if (!durable.hasTopic("sums")) {
                durable.createTopic("sums", 2);
            }
        }
        Pipeline pipeline =
                Pipeline.create(name)
                        .parallelism(2)
                        .checkpointing(
                                CheckpointConfig.exactlyOnce(
                                        Duration.ofMillis(intervalMs), temp.resolve(name + "-chk")))
                        .restartStrategy(RestartStrategy.fixedDelay(3, Duration.ofMillis(10)))
                        .listener(
                                new JobListener() {
                                    private final AtomicInteger completed = new AtomicInteger();

                                    /**
                                     * Arms the failure at the third completed checkpoint: the sinks
                                     * commit a checkpoint when told it completed, which races with
                                     * a failure right after it, and the first may hold no record
                                     * yet; by the third, the second's commit is done.
                                     */
                                    @Override
                                    public void onCheckpointComplete(CheckpointStats stats) {
                                        if (completed.incrementAndGet() >= 3) {
                                            checkpointed.set(true);
                                        }
                                    }
                                });
        var sums =
                pipeline.source("numbers", source)
                        .parallelism(sourceParallelism)
                        .map(
                                n -> {
                                    if (checkpointed.get() && failOnce.compareAndSet(true, false)) {
                                        throw new IllegalStateException("injected failure at " + n);
                                    }
                                    return n * 10;
                                })
                        .keyBy(n -> n % KEYS)
                        .<Long, String>process(
                                "sum",
                                Codecs.LONG,
                                (key, n, sum, collector) -> {
                                    long next = (sum.value() == null ? 0 : sum.value()) + n;
                                    sum.update(next);
                                    collector.collect(key + ":" + next);
                                });
        sums.sink("files", FileSink.<String>to(out.files()));
        sums.sink("log", LogSink.to(out.log(), "sums", Codecs.STRING));
        sums.sink(
                "table",
                new FileTableSink<String, String>(
                        out.table(),
                        line -> line.substring(0, line.indexOf(':')),
                        Codecs.STRING,
                        true));
        return pipeline;
    }

    /** What the pipeline must commit for the numbers {@code 1..n}, sorted. */
    static List<String> expected(long n) {
        long[] sums = new long[KEYS];
        List<String> lines = new ArrayList<>();
        for (long i = 1; i <= n; i++) {
            long value = i * 10;
            int key = (int) (value % KEYS);
            sums[key] += value;
            lines.add(key + ":" + sums[key]);
        }
        return sorted(lines);
    }

    /** The table an idempotent sink keyed by the key must end with: each key's last sum. */
    static List<String> expectedTable(long n) {
        java.util.Map<String, String> last = new java.util.TreeMap<>();
        for (String line : expected(n)) {
            String key = line.substring(0, line.indexOf(':'));
            String previous = last.get(key);
            long sum = Long.parseLong(line.substring(line.indexOf(':') + 1));
            if (previous == null
                    || Long.parseLong(previous.substring(previous.indexOf(':') + 1)) < sum) {
                last.put(key, line);
            }
        }
        return sorted(new ArrayList<>(last.values()));
    }

    Outputs outputs(String name) {
        return new Outputs(
                temp.resolve(name + "-files"),
                temp.resolve(name + "-log"),
                temp.resolve(name + "-table"));
    }

    JobResult run(Pipeline pipeline, Runner runner) throws Exception {
        return runner == null ? pipeline.run() : pipeline.run(runner);
    }

    @Test
    void sequenceToFileAndLogSinksCommitsTheSameOutputOnWeirAndOnFlink() throws Exception {
        long n = 2_000;
        Outputs weir = outputs("weir");
        Outputs flink = outputs("flink");
        run(
                pipeline(
                        "weir",
                        Sources.sequence(1, n),
                        1,
                        weir,
                        50,
                        new AtomicBoolean(),
                        new AtomicBoolean()),
                null);
        run(
                pipeline(
                        "flink",
                        Sources.sequence(1, n),
                        1,
                        flink,
                        50,
                        new AtomicBoolean(),
                        new AtomicBoolean()),
                FlinkRunner.local(2));

        assertThat(flink.fileLines()).isEqualTo(weir.fileLines()).isEqualTo(expected(n));
        assertThat(flink.logRecords()).isEqualTo(weir.logRecords()).isEqualTo(expected(n));
        assertThat(flink.tableRows()).isEqualTo(weir.tableRows()).isEqualTo(expectedTable(n));
    }

    @Test
    void logSourceWithTwoPartitionsGivesTheSameOutputOnWeirAndOnFlink() throws Exception {
        long n = 2_000;
        Path input = temp.resolve("input");
        try (DurableLog durable = DurableLog.open(input, LogOptions.defaults())) {
            durable.createTopic("numbers", 2);
            // Keys are n × 10 % 4: partition 0 holds the even numbers, 1 the odd ones, so each
            // key's records come from one split in order, and its running sums are deterministic.
            for (int p = 0; p < 2; p++) {
                List<byte[]> records = new ArrayList<>();
                for (long i = 1 + p == 1 ? 2 : 1; i <= n; i += 2) {
                    records.add(Codecs.LONG.toBytes(i));
                }
                durable.append("numbers", p, records);
            }
        }
        Outputs weir = outputs("weir");
        Outputs flink = outputs("flink");
        run(
                pipeline(
                        "weir",
                        Sources.log(input, "numbers", Codecs.LONG),
                        2,
                        weir,
                        50,
                        new AtomicBoolean(),
                        new AtomicBoolean()),
                null);
        run(
                pipeline(
                        "flink",
                        Sources.log(input, "numbers", Codecs.LONG),
                        2,
                        flink,
                        50,
                        new AtomicBoolean(),
                        new AtomicBoolean()),
                FlinkRunner.local(2));

        assertThat(weir.fileLines()).isEqualTo(expected(n));
        assertThat(flink.fileLines()).isEqualTo(expected(n));
        assertThat(flink.logRecords()).isEqualTo(weir.logRecords()).isEqualTo(expected(n));
    }

    @Test
    void aFunctionThatThrowsOnceAfterACheckpointRestartsFlinkWithExactlyOnceOutput()
            throws Exception {
        long n = 6_000;
        Outputs flink = outputs("flink");
        AtomicBoolean failOnce = new AtomicBoolean(true);
        AtomicBoolean checkpointed = new AtomicBoolean();
        // 1 split at 4000 records/s: about 1.5 s, so checkpoints (every 50 ms) complete first.
        JobResult result =
                run(
                        pipeline(
                                "flink",
                                Sources.sequence(1, n, 1, 4_000),
                                1,
                                flink,
                                50,
                                failOnce,
                                checkpointed),
                        FlinkRunner.local(2));

        assertThat(failOnce).as("the failure was injected").isFalse();
        assertThat(result.restarts()).isGreaterThanOrEqualTo(1);
        assertThat(flink.fileLines()).isEqualTo(expected(n));
        assertThat(flink.logRecords()).isEqualTo(expected(n));
        assertThat(flink.tableRows()).isEqualTo(expectedTable(n));
    }

    @Test
    void aNewRunAfterAFailedOneResumesFromItsNewestCheckpointExactlyOnce() throws Exception {
        long n = 6_000;
        Outputs flink = outputs("flink");
        AtomicBoolean failOnce = new AtomicBoolean(true);
        AtomicBoolean checkpointed = new AtomicBoolean();
        // The source reads 1,000 records and then nothing until three checkpoints completed: the
        // failure, armed by the third, then hits a record however slowly the checkpoints come.
        Pipeline first =
                pipeline(
                                "flink",
                                new HoldingSource<>(Sources.sequence(1, n), 1_000, checkpointed),
                                1,
                                flink,
                                50,
                                failOnce,
                                checkpointed)
                        .restartStrategy(RestartStrategy.none());
        assertThatThrownBy(() -> first.run(FlinkRunner.local(2)))
                .isInstanceOf(JobFailedException.class)
                .cause()
                .hasMessageStartingWith("injected failure at");
        assertThat(flink.fileLines()).as("the first run committed output").isNotEmpty();

        // A new run on the same directories (resume "latest", the default), as a new process
        // would start: it restores the failed run's newest checkpoint instead of starting over.
        pipeline("flink", Sources.sequence(1, n, 1, 0), 1, flink, 50, failOnce, new AtomicBoolean())
                .run(FlinkRunner.local(2));

        assertThat(flink.fileLines()).isEqualTo(expected(n));
        assertThat(flink.logRecords()).isEqualTo(expected(n));
        assertThat(flink.tableRows()).isEqualTo(expectedTable(n));

        // Flink deleted the finished run's checkpoints; the failed run's stay. A third run must
        // neither restore that older checkpoint nor start over into the full sinks: it is refused
        // with the reason (it once failed in a sink, blaming a lost checkpoint).
        Pipeline third =
                pipeline(
                        "flink",
                        Sources.sequence(1, n, 1, 0),
                        1,
                        flink,
                        50,
                        failOnce,
                        new AtomicBoolean());
        assertThatThrownBy(() -> third.run(FlinkRunner.local(2)))
                .hasMessageContaining("already finished on Flink")
                .hasMessageContaining("withResume");
        assertThat(flink.fileLines()).as("the refused run added nothing").isEqualTo(expected(n));
        assertThat(flink.logRecords()).isEqualTo(expected(n));
    }

    /**
     * Reads {@code holdAt} records of each split of {@code inner}, then nothing until {@code
     * released} is set (at most a minute, so a run whose checkpoints never complete fails its
     * assertions instead of hanging).
     */
    static final class HoldingSource<T> implements Source<T> {
        private static final long serialVersionUID = 1L;
        private final Source<T> inner;
        private final long holdAt;
        private final AtomicBoolean released;

        HoldingSource(Source<T> inner, long holdAt, AtomicBoolean released) {
            this.inner = inner;
            this.holdAt = holdAt;
            this.released = released;
        }

        @Override
        public String kind() {
            return inner.kind();
        }

        @Override
        public boolean isReplayable() {
            return inner.isReplayable();
        }

        @Override
        public List<String> splits(int parallelism) {
            return inner.splits(parallelism);
        }

        @Override
        public SourceReader<T> openReader(String split, SourceContext context) throws Exception {
            SourceReader<T> reader = inner.openReader(split, context);
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
            return new SourceReader<>() {
                private long read;

                @Override
                public ReadStatus poll(Collector<T> out, int maxRecords) throws Exception {
                    int budget = maxRecords;
                    if (!released.get() && System.nanoTime() < deadline) {
                        budget = (int) Math.min(budget, holdAt - read);
                        if (budget <= 0) {
                            return ReadStatus.NOTHING_AVAILABLE;
                        }
                    }
                    long before = reader.position();
                    ReadStatus status = reader.poll(out, budget);
                    read += reader.position() - before;
                    return status;
                }

                @Override
                public long position() {
                    return reader.position();
                }

                @Override
                public void seek(long position) throws Exception {
                    reader.seek(position);
                }

                @Override
                public byte[] snapshotState() throws Exception {
                    return reader.snapshotState();
                }

                @Override
                public void restoreState(byte[] state) throws Exception {
                    reader.restoreState(state);
                }

                @Override
                public void close() throws Exception {
                    reader.close();
                }
            };
        }
    }

    @Test
    void aFailureWithoutRestartsReportsTheUsersException() {
        assertReportsTheUsersException(Sources.sequence(1, 10), 5);
    }

    @Test
    void aFailureInTheFirstOfManySplitsReportsTheUsersException() {
        // 500 splits on one reader: 500 split events and then "no more splits" reach the task one
        // by one. Were it to read (and fail) as the first split arrives, a later event would find
        // the task failed, and the job would fail with Flink's "Task is not running".
        for (int round = 0; round < 5; round++) {
            assertReportsTheUsersException(Sources.sequence(1, 5_000, 500, 0), 3);
        }
    }

    @Test
    void aStopWithSavepointNamesTheSavepointInTheJobResult() throws Exception {
        // Counts down once the first record passed: the tasks run, so a stop can be asked.
        CountDownLatch running = new CountDownLatch(1);
        Pipeline pipeline =
                Pipeline.create("stops")
                        .parallelism(1)
                        .checkpointing(
                                CheckpointConfig.exactlyOnce(
                                        Duration.ofMillis(50), temp.resolve("chk")));
        pipeline.source("numbers", Sources.sequence(1, 1_000_000, 1, 1_000))
                .map(
                        n -> {
                            running.countDown();
                            return n;
                        })
                .sink("out", Sinks.collect());
        JobHandle job = pipeline.start(FlinkRunner.local(1));
        try {
            assertThat(running.await(2, TimeUnit.MINUTES)).isTrue();
            CheckpointStats savepoint =
                    job.stopWithSavepoint(temp.resolve("savepoints")).get(2, TimeUnit.MINUTES);
            JobResult result = job.await(Duration.ofMinutes(2));

            assertThat(savepoint.path()).startsWith(temp.resolve("savepoints"));
            assertThat(result.stoppedWithSavepoint())
                    .as("as on Weir's own runtime")
                    .contains(savepoint.path());
        } finally {
            job.cancel();
        }
    }

    @Test
    void anUnrecoverableFailureOfAFunctionFailsTheJobWithoutSpendingItsRestarts() throws Exception {
        Path log = temp.resolve("unrecoverable-function-log");
        try (DurableLog durable = DurableLog.open(log, LogOptions.defaults())) {
            durable.createTopic("out", 1);
        }
        Pipeline pipeline = restartingOften("unrecoverable-function");
        pipeline.source("numbers", Sources.sequence(1, 10))
                .map(
                        n -> {
                            if (n == 5) {
                                throw new UnrecoverableException("table t does not exist");
                            }
                            return n;
                        })
                .sink("out", LogSink.to(log, "out", Codecs.LONG));

        assertFailsAtOnce(pipeline, "table t does not exist");
    }

    @Test
    void anUnrecoverableFailureOfASinkFailsTheJobWithoutSpendingItsRestarts() throws Exception {
        Path log = temp.resolve("unrecoverable-sink-log");
        try (DurableLog durable = DurableLog.open(log, LogOptions.defaults())) {
            durable.createTopic("other", 1);
        }
        Pipeline pipeline = restartingOften("unrecoverable-sink");
        pipeline.source("numbers", Sources.sequence(1, 10))
                .sink("out", LogSink.to(log, "missing", Codecs.LONG));

        assertFailsAtOnce(pipeline, "has no topic 'missing'");
    }

    @Test
    void anUnrecoverableFailureThatDoesNotSerialiseOrComesFromAKeySelectorFailsAtOnceNamedAsIs()
            throws Exception {
        Path log = temp.resolve("unrecoverable-variants-log");
        try (DurableLog durable = DurableLog.open(log, LogOptions.defaults())) {
            durable.createTopic("out", 1);
            durable.createTopic("keyed", 1);
        }
        // Its cause holds an object that does not serialise, as Flink sends failures.
        Pipeline unsendable = restartingOften("unrecoverable-unsendable");
        unsendable
                .source("numbers", Sources.sequence(1, 10))
                .map(
                        n -> {
                            if (n == 5) {
                                throw new UnrecoverableException(
                                        "table t does not exist", new Unsendable("driver detail"));
                            }
                            return n;
                        })
                .sink("out", LogSink.to(log, "out", Codecs.LONG));
        assertFailsAtOnce(unsendable, "table t does not exist");

        Pipeline keyed = restartingOften("unrecoverable-key");
        keyed.source("numbers", Sources.sequence(1, 10))
                .keyBy(
                        n -> {
                            if (n == 5) {
                                throw new UnrecoverableException("no key for 5");
                            }
                            return n % 3;
                        })
                .reduce("sum", Long::sum)
                .sink("out", LogSink.to(log, "keyed", Codecs.LONG));
        assertFailsAtOnce(keyed, "no key for 5");
    }

    /** A failure whose field does not serialise. */
    static final class Unsendable extends RuntimeException {
        private static final long serialVersionUID = 1L;

        @SuppressWarnings({"serial", "unused"})
        private final Object notSerialisable = new Object();

        Unsendable(String message) {
            super(message);
        }
    }

    @Test
    void restartsOfAJobWithoutKeysAreCounted() throws Exception {
        AtomicBoolean failOnce = new AtomicBoolean(true);
        Pipeline pipeline =
                Pipeline.create("restarts-counted")
                        .parallelism(2)
                        .restartStrategy(RestartStrategy.fixedDelay(5, Duration.ofMillis(10)));
        pipeline.source("numbers", Sources.sequence(1, 100))
                .map(
                        n -> {
                            if (n == 50 && failOnce.getAndSet(false)) {
                                throw new IllegalStateException("once");
                            }
                            return n;
                        })
                .sink("out", Sinks.collect());

        JobResult result = pipeline.run(FlinkRunner.local(2));

        assertThat(failOnce).as("the failure was injected").isFalse();
        assertThat(result.restarts()).as("as on Weir's runtime").isEqualTo(1);
    }

    @Test
    @org.junit.jupiter.api.Timeout(120)
    void aFailureWhoseCausesFormALoopFailsTheJob() throws Exception {
        Path log = temp.resolve("cause-loop-log");
        try (DurableLog durable = DurableLog.open(log, LogOptions.defaults())) {
            durable.createTopic("out", 1);
            durable.createTopic("unrecoverable", 1);
        }
        // Flink walks a failure's causes without a bound: its task used to hang on this one.
        Pipeline ordinary = restartingOnce("cause-loop");
        ordinary.source("numbers", Sources.sequence(1, 10))
                .map(
                        n -> {
                            if (n == 5) {
                                throw loop(new IllegalStateException("A"));
                            }
                            return n;
                        })
                .sink("out", LogSink.to(log, "out", Codecs.LONG));
        JobHandle job = ordinary.start(FlinkRunner.local(1));
        try {
            assertThatThrownBy(() -> job.await(Duration.ofMinutes(2)))
                    .isInstanceOf(JobFailedException.class)
                    .cause()
                    .hasMessageContaining("java.lang.IllegalStateException: A")
                    .hasMessageContaining("its causes form a loop");
            assertThat(job.restarts()).as("restarts, as the strategy allows").isEqualTo(1);
        } finally {
            job.cancel();
        }

        Pipeline unrecoverable = restartingOften("cause-loop-unrecoverable");
        unrecoverable
                .source("numbers", Sources.sequence(1, 10))
                .map(
                        n -> {
                            if (n == 5) {
                                throw loop(new UnrecoverableException("table t does not exist"));
                            }
                            return n;
                        })
                .sink("out", LogSink.to(log, "unrecoverable", Codecs.LONG));
        assertFailsAtOnce(unrecoverable, "table t does not exist");
    }

    /** {@code first}, caused by a second failure that it causes in turn. */
    private static RuntimeException loop(RuntimeException first) {
        RuntimeException second = new RuntimeException("B");
        first.initCause(second);
        second.initCause(first);
        return first;
    }

    /** A pipeline like {@link #restartingOften} whose strategy restarts it once. */
    private Pipeline restartingOnce(String name) {
        return restartingOften(name)
                .restartStrategy(RestartStrategy.fixedDelay(1, Duration.ofMillis(10)));
    }

    /** A checkpointed pipeline whose restart strategy would try 20 times. */
    private Pipeline restartingOften(String name) {
        return Pipeline.create(name)
                .parallelism(1)
                .restartStrategy(RestartStrategy.fixedDelay(20, Duration.ofMillis(10)))
                .checkpointing(
                        CheckpointConfig.exactlyOnce(
                                Duration.ofMillis(50), temp.resolve(name + "-chk")));
    }

    /**
     * {@code pipeline} fails on Flink with the {@link UnrecoverableException} whose message holds
     * {@code message}, and Flink restarted nothing (as Weir's runtime does), where the strategy
     * would have restarted it 20 times for another failure.
     */
    private static void assertFailsAtOnce(Pipeline pipeline, String message) throws Exception {
        JobHandle job = pipeline.start(FlinkRunner.local(1));
        try {
            assertThatThrownBy(() -> job.await(Duration.ofMinutes(2)))
                    .isInstanceOf(JobFailedException.class)
                    .cause()
                    .isInstanceOf(UnrecoverableException.class)
                    .hasMessageContaining(message);
            assertThat(job.restarts()).as("restarts").isZero();
        } finally {
            job.cancel();
        }
    }

    /** A job without restarts whose map throws at {@code failAt} fails with that exception. */
    private static void assertReportsTheUsersException(Source<Long> numbers, long failAt) {
        Pipeline pipeline =
                Pipeline.create("fails").parallelism(1).restartStrategy(RestartStrategy.none());
        pipeline.source("numbers", numbers)
                .map(
                        n -> {
                            if (n == failAt) {
                                throw new IllegalArgumentException(n + " is not allowed");
                            }
                            return n;
                        })
                .sink("out", Sinks.collect());

        assertThatThrownBy(() -> pipeline.run(FlinkRunner.local(1)))
                .isInstanceOf(JobFailedException.class)
                .cause()
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(failAt + " is not allowed");
    }

    @Test
    void onEndOfInputVisitsEveryKeyWithItsStateOnWeirAndOnFlink() throws Exception {
        List<String> weir = totals(null);
        List<String> flink = totals(FlinkRunner.local(2));

        // 1..100 by n % 4: the sums of 4, 8, ..., 100; 1, 5, ..., 97; and so on.
        assertThat(flink).isEqualTo(weir).containsExactly("0=1300", "1=1225", "2=1250", "3=1275");
    }

    List<String> totals(Runner runner) throws Exception {
        var out = Sinks.<String>collect();
        Pipeline pipeline = Pipeline.create("totals").parallelism(2);
        pipeline.source("numbers", Sources.sequence(1, 100))
                .keyBy(n -> n % KEYS)
                .process("totals", EndOfInputTotals::new)
                .sink("out", out);
        run(pipeline, runner);
        return sorted(out.results());
    }

    @Test
    void aStepWiderThanTheLocalClusterIsRefused() {
        Pipeline pipeline = Pipeline.create("wide").parallelism(4);
        pipeline.source("numbers", Sources.sequence(1, 10)).sink("out", Sinks.collect());

        assertThatThrownBy(() -> pipeline.start(FlinkRunner.local(2)))
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("parallelism 4 exceeds the 2 slots")
                .hasMessageContaining("FlinkRunner.local(4)");
    }

    @Test
    void aProcessingTimeClockOfItsOwnIsRefused() {
        Pipeline pipeline =
                Pipeline.create("manual-clock").processingTimeClock(() -> java.time.Instant.EPOCH);
        pipeline.source("numbers", Sources.sequence(1, 10)).sink("out", Sinks.collect());

        assertThatThrownBy(() -> pipeline.start(FlinkRunner.local(1)))
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("Pipeline.processingTimeClock")
                .hasMessageContaining("Weir's runtime");
    }

    @Test
    void collectSinkAndCapturedObjectsAreSharedWithTheLocalCluster() throws Exception {
        var results = Sinks.<Long>collect();
        Pipeline pipeline = Pipeline.create("collect").parallelism(2);
        pipeline.source("numbers", Sources.sequence(1, 100))
                .filter(n -> n % 10 == 0)
                .sink("out", results);

        pipeline.run(FlinkRunner.local(2));

        assertThat(results.results())
                .containsExactlyInAnyOrder(10L, 20L, 30L, 40L, 50L, 60L, 70L, 80L, 90L, 100L);
    }

    @Test
    void eventTimeTimersFireTheSameWindowsOnWeirAndOnFlink() throws Exception {
        long n = 2_000;
        List<String> weir = windowSums(n, null);
        List<String> flink = windowSums(n, FlinkRunner.local(2));

        assertThat(flink).isEqualTo(weir).isEqualTo(expectedWindowSums(n));
    }

    @Test
    void aSourceThatAssignsEventTimePerSplitFiresTheSameWindowsOnWeirAndOnFlink() throws Exception {
        long n = 2_000;
        List<String> weir = sourceWindowSums(n, null);
        List<String> flink = sourceWindowSums(n, FlinkRunner.local(2));

        assertThat(flink).isEqualTo(weir).isEqualTo(expectedWindowSums(n));
    }

    /**
     * As {@link #windowSums}, with time assigned in the source ({@code Pipeline.source(name,
     * source, watermarks)}): four splits, each monotonous on its own.
     */
    List<String> sourceWindowSums(long n, Runner runner) throws Exception {
        var out = Sinks.<String>collect();
        Pipeline pipeline = Pipeline.create("source-windows").parallelism(2);
        pipeline.source(
                        "numbers",
                        Sources.sequence(1, n, 4, 0),
                        WatermarkStrategy.<Long>forMonotonousTimestamps()
                                .withTimestampAssigner((i, previous) -> i * 10))
                .keyBy(i -> i % KEYS)
                .process("windows", WindowSums::new)
                .sink("out", out);
        run(pipeline, runner);
        return sorted(out.results());
    }

    /** Record {@code i} at event time {@code i × 10} ms; sums per key and second, by timers. */
    List<String> windowSums(long n, Runner runner) throws Exception {
        var out = Sinks.<String>collect();
        Pipeline pipeline = Pipeline.create("windows").parallelism(2);
        pipeline.source("numbers", Sources.sequence(1, n))
                .parallelism(1)
                .assignTimestampsAndWatermarks(
                        WatermarkStrategy.<Long>forMonotonousTimestamps()
                                .withTimestampAssigner((i, previous) -> i * 10))
                .parallelism(1)
                .keyBy(i -> i % KEYS)
                .process("windows", WindowSums::new)
                .sink("out", out);
        run(pipeline, runner);
        return sorted(out.results());
    }

    static List<String> expectedWindowSums(long n) {
        java.util.Map<String, Long> sums = new java.util.TreeMap<>();
        for (long i = 1; i <= n; i++) {
            long end = (i * 10 / 1000 + 1) * 1000;
            sums.merge((i % KEYS) + "@" + end, i, Long::sum);
        }
        List<String> lines = new ArrayList<>();
        sums.forEach((window, sum) -> lines.add(window + "=" + sum));
        return sorted(lines);
    }

    /**
     * A one-second tumbling window per key made of keyed state and event-time timers: each record
     * adds to its window's sum; a timer at the window's last millisecond emits and forgets it.
     */
    static final class WindowSums implements KeyedProcessFunction<Long, Long, String> {
        private static final long serialVersionUID = 1L;
        private MapState<Long, Long> sums;

        @Override
        public void open(OpenContext context) {
            sums = context.states().mapState("sums", Codecs.LONG, Codecs.LONG);
        }

        @Override
        public void process(
                Long value,
                Context<Long, String> context,
                dev.weir.api.function.Collector<String> out) {
            long end = (context.timestamp() / 1000 + 1) * 1000;
            Long sum = sums.get(end);
            sums.put(end, (sum == null ? 0 : sum) + value);
            context.timers().registerEventTimeTimer(end - 1);
        }

        @Override
        public void onTimer(
                long timestamp,
                OnTimerContext<Long, String> context,
                dev.weir.api.function.Collector<String> out) {
            long end = timestamp + 1;
            out.collect(context.key() + "@" + end + "=" + sums.get(end));
            sums.remove(end);
        }
    }

    /** Sums per key and emits "key=total" for every key at the end of input. */
    static final class EndOfInputTotals implements KeyedProcessFunction<Long, Long, String> {
        private static final long serialVersionUID = 1L;
        private ValueState<Long> total;

        @Override
        public void open(OpenContext context) {
            total = context.states().valueState("total", Codecs.LONG);
        }

        @Override
        public void process(
                Long value,
                Context<Long, String> context,
                dev.weir.api.function.Collector<String> out) {
            total.update((total.value() == null ? 0 : total.value()) + value);
        }

        @Override
        public void onEndOfInput(
                EndOfInputContext<Long, String> context,
                dev.weir.api.function.Collector<String> out)
                throws Exception {
            context.forEachKey(key -> out.collect(key + "=" + total.value()));
        }
    }
}
