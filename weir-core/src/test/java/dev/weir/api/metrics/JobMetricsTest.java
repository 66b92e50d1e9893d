package dev.weir.api.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.api.JobHandle;
import dev.weir.api.JobResult;
import dev.weir.api.Pipeline;
import dev.weir.api.RestartStrategy;
import dev.weir.api.checkpoint.CheckpointConfig;
import dev.weir.api.codec.Codecs;
import dev.weir.api.function.Collector;
import dev.weir.api.log.DurableLog;
import dev.weir.api.log.LogOptions;
import dev.weir.api.metrics.JobMetrics.StepMetrics;
import dev.weir.api.sink.FileSink;
import dev.weir.api.sink.Sinks;
import dev.weir.api.source.ReadStatus;
import dev.weir.api.source.Source;
import dev.weir.api.source.SourceReader;
import dev.weir.api.source.Sources;
import dev.weir.api.state.KeyGroups;
import dev.weir.api.testing.FaultPoint;
import dev.weir.api.testing.Faults;
import dev.weir.source.ReplayableSourceConformance;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JobMetricsTest {
    @TempDir Path dir;

    @AfterEach
    void disarm() {
        Faults.disarm();
    }

    private static final int MAX_PARALLELISM = 128;

    /** numbers(1..10,000) → double → evens → keyBy(n % 10) → sum → out, at parallelism 2. */
    private static JobHandle boundedJob() {
        Pipeline pipeline =
                Pipeline.create("counted").parallelism(2).maxParallelism(MAX_PARALLELISM);
        pipeline.source("numbers", Sources.sequence(1, 10_000))
                .map(n -> n * 2)
                .name("double")
                .filter(n -> n % 4 == 0)
                .name("evens")
                .keyBy(n -> n % 10)
                .reduce("sum", Long::sum)
                .sink("out", Sinks.counting());
        return pipeline.start();
    }

    private static Map<String, long[]> totals(JobMetrics metrics) {
        Map<String, long[]> totals = new HashMap<>();
        for (StepMetrics step : metrics.steps()) {
            long[] sum = totals.computeIfAbsent(step.step(), k -> new long[2]);
            sum[0] += step.recordsIn();
            sum[1] += step.recordsOut();
        }
        return totals;
    }

    @Test
    void recordsInAndOutOfEveryStepAreExactForABoundedJob() throws Exception {
        JobHandle job = boundedJob();
        job.await(Duration.ofMinutes(2));

        Map<String, long[]> totals = totals(job.metrics());
        assertThat(totals.keySet())
                .containsExactlyInAnyOrder("numbers", "double", "evens", "sum", "out");
        assertThat(totals.get("numbers")).containsExactly(10_000, 10_000);
        assertThat(totals.get("double")).containsExactly(10_000, 10_000);
        assertThat(totals.get("evens")).containsExactly(10_000, 5_000);
        assertThat(totals.get("sum")).containsExactly(5_000, 5_000); // one update per record
        assertThat(totals.get("out")).containsExactly(5_000, 5_000); // a sink's out: written
        assertThat(job.metrics().steps()).hasSize(10); // five steps, two subtasks each
    }

    @Test
    void aKeyedStepCountsPerSubtaskTheRecordsOfTheKeyGroupsItOwns() throws Exception {
        long[] expected = new long[2];
        for (long n = 1; n <= 10_000; n++) {
            long doubled = n * 2;
            if (doubled % 4 == 0) {
                int group = KeyGroups.keyGroupOf(doubled % 10, MAX_PARALLELISM);
                expected[KeyGroups.subtaskOf(group, MAX_PARALLELISM, 2)]++;
            }
        }
        JobHandle job = boundedJob();
        job.await(Duration.ofMinutes(2));

        long[] actual = new long[2];
        for (StepMetrics step : job.metrics().steps()) {
            if (step.step().equals("sum")) {
                actual[step.subtask()] = step.recordsIn();
            }
        }
        assertThat(actual).containsExactly(expected);
    }

    @Test
    void tasksAndChannelsAreListedWithTheirFigures() throws Exception {
        JobHandle job = boundedJob();
        job.await(Duration.ofMinutes(2));
        JobMetrics metrics = job.metrics();

        assertThat(metrics.jobName()).isEqualTo("counted");
        assertThat(metrics.tasks()).extracting(JobMetrics.TaskMetrics::task).hasSize(4);
        for (JobMetrics.TaskMetrics task : metrics.tasks()) {
            assertThat(task.busyNanos()).isPositive();
            assertThat(task.backpressuredNanos()).isNotNegative();
            assertThat(task.idleNanos()).isNotNegative();
        }
        // The keyed edge: each of two producers to each of two consumers.
        assertThat(metrics.channels()).hasSize(4);
        for (JobMetrics.ChannelMetrics channel : metrics.channels()) {
            assertThat(channel.queuedItems()).isZero(); // the job has ended: all read
            assertThat(channel.fill()).isZero();
            assertThat(channel.capacityItems()).isPositive();
        }
        assertThat(metrics.sources()).hasSize(2);
        assertThat(metrics.sources()).allSatisfy(s -> assertThat(s.lag()).isZero());
        assertThat(metrics.checkpointsCompleted()).isZero();
        assertThat(metrics.lastCheckpoint()).isNull();
    }

    /** A sink that holds each record until the test opens the gate. */
    static final CountDownLatch GATE = new CountDownLatch(1);

    @Test
    void aBlockedSinkShowsAsAFullChannelAndABackpressuredSource() throws Exception {
        Pipeline pipeline =
                Pipeline.create("pressed").parallelism(1).batchSize(16).channelCapacityBatches(2);
        pipeline.source("numbers", Sources.sequence(1, 1_000_000))
                .keyBy(n -> n % 5)
                .reduce("sum", Long::sum)
                .sink("held", Sinks.callback(n -> GATE.await()));
        JobHandle job = pipeline.start();
        try {
            JobMetrics.TaskMetrics source = task(job.metrics(), "numbers#0");
            JobMetrics.ChannelMetrics channel = job.metrics().channels().get(0);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            // The tasks after the source take a few batches before the held sink blocks them all:
            // wait until the source refilled its channel and it stayed full for 50 reads in a
            // row (the reduce may still take a batch while its own output drains into the sink).
            int fullReads = 0;
            while (fullReads < 50) {
                boolean full =
                        source.backpressuredNanos() > 0
                                && channel.fill() >= 1.0
                                && channel.queuedItems() >= channel.capacityItems();
                fullReads = full ? fullReads + 1 : 0;
                assertThat(System.nanoTime()).as("backpressure seen by now").isLessThan(deadline);
                LockSupport.parkNanos(1_000_000);
            }
            assertThat(channel.from()).isEqualTo("numbers#0");
            assertThat(channel.queuedItems()).isEqualTo(channel.capacityItems());
            // The held task moved one batch, then blocked in the sink: the source is far ahead.
            long read = 0;
            for (StepMetrics step : job.metrics().steps()) {
                if (step.step().equals("held")) {
                    assertThat(step.recordsIn()).isLessThanOrEqualTo(1);
                }
                if (step.step().equals("numbers")) {
                    read = step.recordsOut();
                }
            }
            assertThat(read).isPositive().isLessThan(1_000_000);
        } finally {
            GATE.countDown();
            job.cancel();
        }
        assertThatThrownBy(job::await).isInstanceOf(CancellationException.class);
    }

    static final CountDownLatch SLOW_STEP_REACHED = new CountDownLatch(1);
    static final CountDownLatch SLOW_STEP_RELEASE = new CountDownLatch(1);

    /**
     * A step that takes long (here: a function chained to the source that waits in the middle of a
     * batch) shows as busy while it runs, and the busy and idle figures only grow.
     */
    @Test
    void aLongStepCountsAsBusyWhileItRunsAndTheTimesOnlyGrow() throws Exception {
        Pipeline pipeline = Pipeline.create("long-step").parallelism(1).batchSize(1000);
        pipeline.source("numbers", Sources.sequence(1, 2_000))
                .map(
                        n -> {
                            if (n == 500) {
                                SLOW_STEP_REACHED.countDown();
                                SLOW_STEP_RELEASE.await();
                            }
                            return n;
                        })
                .sink("out", Sinks.counting());
        JobHandle job = pipeline.start();
        try {
            assertThat(SLOW_STEP_REACHED.await(60, TimeUnit.SECONDS)).isTrue();
            JobMetrics.TaskMetrics source = task(job.metrics(), "numbers#0");
            long busy1 = source.busyNanos();
            long idle1 = source.idleNanos();
            long until = System.nanoTime() + 50_000_000; // time passes inside the step
            while (System.nanoTime() < until) {
                LockSupport.parkNanos(until - System.nanoTime());
            }
            long busy2 = source.busyNanos();
            long idle2 = source.idleNanos();
            assertThat(busy2 - busy1).as("the step in progress counts").isGreaterThan(40_000_000);
            assertThat(idle2).as("idle never goes down").isGreaterThanOrEqualTo(idle1);
        } finally {
            SLOW_STEP_RELEASE.countDown();
        }
        job.await(Duration.ofMinutes(1));
        JobMetrics.TaskMetrics done = task(job.metrics(), "numbers#0");
        assertThat(done.busyNanos()).isGreaterThan(40_000_000);
    }

    static final CountDownLatch LAG_POINT_REACHED = new CountDownLatch(1);
    static final CountDownLatch LAG_POINT_RELEASE = new CountDownLatch(1);

    /** A source whose polls are slow still shows its lag falling as it reads. */
    @Test
    void theLagOfASlowSourceFallsAsItReads() throws Exception {
        Pipeline pipeline = Pipeline.create("slow-lag").parallelism(1).batchSize(1_000);
        pipeline.source("numbers", Sources.sequence(1, 5_000, 1, 0))
                .map(
                        n -> {
                            // 150 us a record (spinning: a park may end early).
                            long until = System.nanoTime() + 150_000;
                            while (System.nanoTime() < until) {
                                Thread.onSpinWait();
                            }
                            if (n == 3_500) {
                                LAG_POINT_REACHED.countDown();
                                LAG_POINT_RELEASE.await();
                            }
                            return n;
                        })
                .sink("out", Sinks.counting());
        JobHandle job = pipeline.start();
        try {
            assertThat(LAG_POINT_REACHED.await(60, TimeUnit.SECONDS)).isTrue();
            // Refreshed after a poll before the one now blocked at record 3,500: it fell from
            // 5,000 and counts none of the blocked poll (polls are sized by time, so where the
            // last one ended depends on the machine).
            assertThat(job.metrics().sources().get(0).lag()).isBetween(1_501L, 4_999L);
        } finally {
            LAG_POINT_RELEASE.countDown();
        }
        job.await(Duration.ofMinutes(1));
        assertThat(job.metrics().sources().get(0).lag()).isZero();
    }

    private static JobMetrics.TaskMetrics task(JobMetrics metrics, String name) {
        return metrics.tasks().stream()
                .filter(t -> t.task().equals(name))
                .findFirst()
                .orElseThrow();
    }

    private Pipeline checkpointedJob(String name) {
        Pipeline pipeline =
                Pipeline.create(name)
                        .parallelism(2)
                        .checkpointing(
                                // Only the final checkpoint: the interval is longer than the job.
                                CheckpointConfig.exactlyOnce(
                                        Duration.ofMinutes(2), dir.resolve("chk")))
                        .restartStrategy(RestartStrategy.fixedDelay(3, Duration.ZERO));
        pipeline.source("numbers", Sources.sequence(1, 1_000))
                .keyBy(n -> n % 100) // keys on both subtasks, so both sinks commit
                .reduce("sum", Long::sum)
                .sink("out", FileSink.to(dir.resolve("out")));
        return pipeline;
    }

    @Test
    void checkpointAndSinkCommitFiguresAppearOnceACheckpointCompletes() throws Exception {
        JobHandle job = checkpointedJob("checkpointed").start();
        JobResult result = job.await(Duration.ofMinutes(2));
        JobMetrics metrics = job.metrics();

        assertThat(result.restarts()).isZero();
        assertThat(metrics.checkpointsCompleted()).isEqualTo(job.checkpointStats().size());
        assertThat(metrics.checkpointsCompleted()).isPositive();
        assertThat(metrics.lastCheckpoint()).isEqualTo(job.checkpointStats().get(0));
        assertThat(metrics.lastCheckpoint().sizeBytes()).isPositive();
        assertThat(metrics.sinks()).hasSize(2);
        for (JobMetrics.SinkMetrics sink : metrics.sinks()) {
            assertThat(sink.step()).isEqualTo("out");
            assertThat(sink.commits()).isPositive();
            assertThat(sink.commitNanos()).isGreaterThanOrEqualTo(sink.lastCommitNanos());
        }
    }

    @Test
    void anIdempotentSinkReportsItsUpsertsAtBarriersAsCommits() throws Exception {
        Pipeline pipeline =
                Pipeline.create("upserts")
                        .parallelism(2)
                        .checkpointing(
                                CheckpointConfig.exactlyOnce(
                                        Duration.ofMinutes(2), dir.resolve("chk-upserts")));
        pipeline.source("numbers", Sources.sequence(1, 1_000))
                .keyBy(n -> n % 100)
                .reduce("sum", Long::sum)
                .sink(
                        "table",
                        new dev.weir.api.sink.FileTableSink<>(
                                dir.resolve("table"), n -> n % 100, Codecs.LONG, true));
        JobHandle job = pipeline.start();
        job.await(Duration.ofMinutes(2));

        assertThat(job.metrics().sinks())
                .hasSize(2)
                .allSatisfy(
                        sink -> {
                            assertThat(sink.step()).isEqualTo("table");
                            // only the final checkpoint ran, and each subtask had keys to write
                            assertThat(sink.commits()).isEqualTo(1);
                            assertThat(sink.lastCommitNanos())
                                    .isPositive()
                                    .isEqualTo(sink.commitNanos());
                        });
    }

    @Test
    void aRestartIsCountedAndTheCountersKeepGrowingAcrossIt() throws Exception {
        Faults.throwAt(FaultPoint.SINK_AFTER_COMMIT, 1); // the final checkpoint's first commit
        JobHandle job = checkpointedJob("restarted").start();
        JobResult result = job.await(Duration.ofMinutes(2));
        JobMetrics metrics = job.metrics();

        assertThat(result.restarts()).isPositive();
        assertThat(metrics.restarts()).isEqualTo(result.restarts());
        // The first attempt read everything; the restart resumed from the final checkpoint.
        assertThat(totals(metrics).get("numbers")[0]).isGreaterThanOrEqualTo(1_000);
        assertThat(totals(metrics).get("sum")[0]).isGreaterThanOrEqualTo(1_000);
        assertThat(metrics.steps()).hasSize(6); // the same entries, bound again
    }

    @Test
    void aLogSourceReaderTellsItsLagBehindThePartitionsEnd() throws Exception {
        Path logDir = dir.resolve("log");
        try (DurableLog log = DurableLog.open(logDir, LogOptions.defaults())) {
            log.createTopic("in", 1);
            List<byte[]> records = new ArrayList<>();
            for (long n = 0; n < 1_000; n++) {
                records.add(Codecs.LONG.toBytes(n));
            }
            log.append("in", 0, records);
        }
        Source<Long> source = Sources.logUnbounded(logDir, "in", Codecs.LONG);
        try (SourceReader<Long> reader =
                source.openReader("in-0", ReplayableSourceConformance.CONTEXT)) {
            assertThat(reader.lag()).isEqualTo(1_000);
            List<Long> read = new ArrayList<>();
            Collector<Long> out = read::add;
            assertThat(reader.poll(out, 300)).isEqualTo(ReadStatus.MORE_AVAILABLE);
            assertThat(read).hasSize(300);
            assertThat(reader.lag()).isEqualTo(700);
        }
    }

    @Test
    void sequenceAndCollectionReadersTellTheRecordsTheyHaveNotEmitted() throws Exception {
        Source<Long> sequence = Sources.sequence(1, 10, 2, 0);
        try (SourceReader<Long> reader =
                sequence.openReader(
                        sequence.splits(2).get(0), ReplayableSourceConformance.CONTEXT)) {
            assertThat(reader.lag()).isEqualTo(5); // 1, 3, 5, 7, 9
            List<Long> read = new ArrayList<>();
            reader.poll(read::add, 2);
            assertThat(read).containsExactly(1L, 3L);
            assertThat(reader.lag()).isEqualTo(3);
            reader.poll(read::add, 100);
            assertThat(reader.lag()).isZero();
        }
        Source<String> collection = Sources.collection(List.of("a", "b", "c"));
        try (SourceReader<String> reader =
                collection.openReader(
                        collection.splits(1).get(0), ReplayableSourceConformance.CONTEXT)) {
            assertThat(reader.lag()).isEqualTo(3);
            reader.poll(s -> {}, 1);
            assertThat(reader.lag()).isEqualTo(2);
        }
    }

    @Test
    void aFilesReaderTellsTheBytesItHasNotRead() throws Exception {
        Path in = java.nio.file.Files.createDirectories(dir.resolve("in"));
        java.nio.file.Files.writeString(in.resolve("a.txt"), "one\ntwo\n"); // 8 bytes
        java.nio.file.Files.writeString(in.resolve("b.txt"), "three\n"); // 6 bytes
        Source<String> files = Sources.files(in, 1);
        try (SourceReader<String> reader =
                files.openReader(files.splits(1).get(0), ReplayableSourceConformance.CONTEXT)) {
            List<String> read = new ArrayList<>();
            reader.poll(read::add, 1); // lists the directory and reads "one"
            assertThat(read).containsExactly("one");
            assertThat(reader.lag()).isEqualTo(4 + 6);
            while (reader.poll(read::add, 100) != ReadStatus.END_OF_INPUT) {
                // read to the end
            }
            assertThat(read).containsExactly("one", "two", "three");
            assertThat(reader.lag()).isZero();
        }
    }

    @Test
    void aReaderThatCannotTellReportsUnknownLag() throws Exception {
        SourceReader<String> reader =
                new SourceReader<>() {
                    @Override
                    public ReadStatus poll(Collector<String> out, int maxRecords) {
                        return ReadStatus.NOTHING_AVAILABLE;
                    }

                    @Override
                    public long position() {
                        return 0;
                    }

                    @Override
                    public void seek(long position) {}
                };
        assertThat(reader.lag()).isEqualTo(-1);
    }
}
