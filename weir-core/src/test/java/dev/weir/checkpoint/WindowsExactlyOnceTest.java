package dev.weir.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.api.DataStream;
import dev.weir.api.JobHandle;
import dev.weir.api.JobResult;
import dev.weir.api.OutputTag;
import dev.weir.api.Pipeline;
import dev.weir.api.RestartStrategy;
import dev.weir.api.checkpoint.CheckpointConfig;
import dev.weir.api.codec.Codec;
import dev.weir.api.codec.Codecs;
import dev.weir.api.function.AggregateFunction;
import dev.weir.api.log.DurableLog;
import dev.weir.api.log.LogOptions;
import dev.weir.api.sink.CollectSink;
import dev.weir.api.sink.FileSink;
import dev.weir.api.sink.Sinks;
import dev.weir.api.source.Source;
import dev.weir.api.source.Sources;
import dev.weir.api.testing.FaultPoint;
import dev.weir.api.testing.Faults;
import dev.weir.api.time.WatermarkGenerator;
import dev.weir.api.time.WatermarkStrategy;
import dev.weir.api.window.WindowAssigner;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Windows keep the end-to-end guarantee: window contents and timers are keyed state, so after a
 * failure, a restore or a rescale every window of every key is committed exactly once, and each
 * record is counted once, in its window or as late.
 */
class WindowsExactlyOnceTest {
    static final long N = 30_000;
    static final long KEYS = 11;
    static final AtomicLong SEEN = new AtomicLong();

    @TempDir Path dir;

    @AfterEach
    void disarm() {
        Faults.disarm();
    }

    /** Every 7th record is 300 ms older than its neighbours, more than the 50 ms bound: late. */
    static long skewed(long v) {
        return v % 7 == 0 ? v - 300 : v;
    }

    static final class Count implements AggregateFunction<Long, Long, Long> {
        @Override
        public Long createAccumulator() {
            return 0L;
        }

        @Override
        public Long add(Long value, Long accumulator) {
            return accumulator + 1;
        }

        @Override
        public Long getResult(Long accumulator) {
            return accumulator;
        }
    }

    /** Per-key counts in tumbling 100 ms windows, "key,start,count", late records aside. */
    Pipeline countJob(String name, int parallelism, Source<Long> source, Path savepoint) {
        Pipeline pipeline =
                Pipeline.create(name)
                        .parallelism(parallelism)
                        .autoWatermarkInterval(Duration.ofMillis(1))
                        .checkpointing(
                                CheckpointConfig.exactlyOnce(
                                                Duration.ofMillis(20), dir.resolve("chk"))
                                        .withResume("none"))
                        .restartStrategy(RestartStrategy.fixedDelay(3, Duration.ZERO));
        if (savepoint != null) {
            pipeline.fromSavepoint(savepoint);
        }
        OutputTag<Long> late = OutputTag.of("late");
        DataStream<String> windows =
                pipeline.source("numbers", source)
                        .map(
                                v -> {
                                    SEEN.incrementAndGet();
                                    return v;
                                })
                        .assignTimestampsAndWatermarks(
                                WatermarkStrategy.<Long>forBoundedOutOfOrderness(
                                                Duration.ofMillis(50))
                                        .withTimestampAssigner((v, previous) -> skewed(v)))
                        .keyBy(v -> v % KEYS)
                        .window(WindowAssigner.tumbling(Duration.ofMillis(100)))
                        .sideOutputLateData(late)
                        .aggregate(
                                "counts",
                                new Count(),
                                Codecs.LONG,
                                (key, context, counts, out) ->
                                        out.collect(
                                                key
                                                        + ","
                                                        + context.window().start()
                                                        + ","
                                                        + counts.iterator().next()));
        windows.sink("windows", FileSink.<String>to(dir.resolve("windows")));
        windows.sideOutput(late).sink("late", FileSink.<Long>to(dir.resolve("late")));
        return pipeline;
    }

    /**
     * Checks the committed output: each (key, window) once, and its count plus the window's
     * committed late records equal the window's records in the input.
     */
    void checkCommittedOutput() throws Exception {
        Map<String, Long> expected = new TreeMap<>();
        for (long v = 1; v <= N; v++) {
            expected.merge(v % KEYS + "," + Math.floorDiv(skewed(v), 100) * 100, 1L, Long::sum);
        }
        List<String> late = FileSink.readCommitted(dir.resolve("late"));
        assertThat(late).doesNotHaveDuplicates();
        for (String line : late) {
            long v = Long.parseLong(line);
            expected.merge(v % KEYS + "," + Math.floorDiv(skewed(v), 100) * 100, -1L, Long::sum);
        }
        expected.values().removeIf(count -> count == 0);
        Map<String, Long> committed = new TreeMap<>();
        List<String> duplicates = new ArrayList<>();
        for (String line : FileSink.readCommitted(dir.resolve("windows"))) {
            int comma = line.lastIndexOf(',');
            if (committed.put(line.substring(0, comma), Long.parseLong(line.substring(comma + 1)))
                    != null) {
                duplicates.add(line);
            }
        }
        assertThat(duplicates).as("windows committed twice").isEmpty();
        assertThat(committed).isEqualTo(expected);
    }

    @ParameterizedTest
    @EnumSource(
            value = FaultPoint.class,
            names = {
                "BARRIER_ALIGNED",
                "SINK_AFTER_PRECOMMIT",
                "SINK_CHECKPOINT_COMPLETE_BEFORE_COMMIT"
            })
    void eachWindowIsCommittedOnceThroughAnInjectedFailure(FaultPoint point) throws Exception {
        Faults.throwAt(point, 8);
        JobResult result =
                countJob("windows-" + point.id(), 2, Sources.sequence(1, N, 4, 60_000), null).run();
        assertThat(result.restarts()).isPositive();
        checkCommittedOutput();
    }

    @Test
    void eachWindowIsCommittedOnceWhenASavepointIsRestoredAtAnotherParallelism() throws Exception {
        SEEN.set(0);
        JobHandle first =
                countJob("windows-rescale", 3, Sources.sequence(1, N, 4, 60_000), null).start();
        while (SEEN.get() < N / 3) {
            if (first.isDone()) {
                first.await();
                throw new AssertionError("the job ended before the savepoint was taken");
            }
            Thread.onSpinWait();
        }
        Path savepoint =
                first.stopWithSavepoint(dir.resolve("sp")).get(30, TimeUnit.SECONDS).path();
        first.await();

        // 3 -> 2: window contents and timers move with their key groups; each new subtask
        // restores the watermark of the old ones (design 008).
        countJob("windows-rescale", 2, Sources.sequence(1, N, 4, 0), savepoint).run();
        checkCommittedOutput();
    }

    /** A test record: a key, an event time, and a watermark emitted just before it. */
    public record Ev(String key, long time, long watermark) {}

    /** Emits each record's watermark (if any) just before the record. */
    static final class Punctuated implements WatermarkGenerator<Ev> {
        @Override
        public void onEvent(Ev record, long timestamp, WatermarkOutput output) {
            if (record.watermark() != Long.MIN_VALUE) {
                output.emit(record.watermark());
            }
        }

        @Override
        public void onPeriodicEmit(WatermarkOutput output) {}
    }

    Pipeline sessionCounts(
            Source<Ev> source, Path savepoint, CollectSink<String> out, CollectSink<Ev> late) {
        return sessionCounts(source, savepoint, out, late, 0);
    }

    /** As above, at {@code parallelism} (0: the default). */
    Pipeline sessionCounts(
            Source<Ev> source,
            Path savepoint,
            CollectSink<String> out,
            CollectSink<Ev> late,
            int parallelism) {
        Pipeline pipeline = Pipeline.create("restored-watermark");
        if (parallelism > 0) {
            pipeline.parallelism(parallelism);
        }
        pipeline.checkpointing(
                CheckpointConfig.exactlyOnce(Duration.ZERO, dir.resolve("chk")).withResume("none"));
        if (savepoint != null) {
            pipeline.fromSavepoint(savepoint);
        }
        OutputTag<Ev> lateTag = OutputTag.of("late");
        DataStream<String> windows =
                pipeline.source("events", source)
                        .assignTimestampsAndWatermarks(
                                WatermarkStrategy.<Ev>forGenerator(Punctuated::new)
                                        .withTimestampAssigner((ev, previous) -> ev.time()))
                        .name("timestamps")
                        .keyBy(Ev::key)
                        .window(WindowAssigner.tumbling(Duration.ofMillis(100)))
                        .sideOutputLateData(lateTag)
                        .aggregate(
                                "counts",
                                new AggregateFunction<Ev, Long, Long>() {
                                    @Override
                                    public Long createAccumulator() {
                                        return 0L;
                                    }

                                    @Override
                                    public Long add(Ev value, Long accumulator) {
                                        return accumulator + 1;
                                    }

                                    @Override
                                    public Long getResult(Long accumulator) {
                                        return accumulator;
                                    }
                                },
                                Codecs.LONG,
                                (key, context, counts, collector) ->
                                        collector.collect(
                                                key
                                                        + ","
                                                        + context.window().start()
                                                        + ","
                                                        + counts.iterator().next()));
        windows.sink("out", out);
        windows.sideOutput(lateTag).sink("late", late);
        return pipeline;
    }

    /**
     * Invariant: a restored window operator starts from the watermark its checkpoint saw, so a
     * window that fired and was dropped before the savepoint is not opened again by a record that
     * arrives after the restore (that record is late, as it would have been without the stop).
     */
    @Test
    void aRestoredWindowOperatorKeepsItsWatermarkSoAFiredWindowDoesNotFireAgain() throws Exception {
        Path logDir = dir.resolve("log");
        Codec<Ev> codec = Codecs.record(Ev.class);
        append(logDir, codec, new Ev("a", 10, Long.MIN_VALUE), new Ev("a", 20, Long.MIN_VALUE));
        append(logDir, codec, new Ev("a", 600, 500)); // the watermark 500 fires [0, 100)

        CollectSink<String> firstOut = Sinks.collect();
        JobHandle first =
                sessionCounts(
                                Sources.logUnbounded(logDir, "events", codec),
                                null,
                                firstOut,
                                Sinks.collect())
                        .start();
        while (!firstOut.results().contains("a,0,2")) {
            if (first.isDone()) {
                first.await();
                throw new AssertionError("the job ended before window [0, 100) fired");
            }
            Thread.onSpinWait();
        }
        Path savepoint =
                first.stopWithSavepoint(dir.resolve("sp")).get(30, TimeUnit.SECONDS).path();
        first.await();

        append(logDir, codec, new Ev("a", 50, Long.MIN_VALUE)); // behind the watermark 500
        CollectSink<String> secondOut = Sinks.collect();
        CollectSink<Ev> secondLate = Sinks.collect();
        sessionCounts(Sources.log(logDir, "events", codec), savepoint, secondOut, secondLate).run();

        assertThat(secondOut.results()).containsExactly("a,600,1");
        assertThat(secondLate.results()).containsExactly(new Ev("a", 50, Long.MIN_VALUE));
    }

    /**
     * Invariant: scaling up does not forget the watermark either. Subtasks added by the rescale
     * restore it like the others, so a record of one of their keys that was late before the
     * savepoint is late after it, and no window that fired before is committed again.
     */
    @Test
    void aWindowThatFiredBeforeASavepointDoesNotFireAgainAfterScalingUp() throws Exception {
        Path logDir = dir.resolve("log");
        Codec<Ev> codec = Codecs.record(Ev.class);
        List<String> keys = List.of("a", "b", "c", "d", "e", "f", "g", "h");
        List<Ev> early = new ArrayList<>();
        for (String key : keys) {
            early.add(new Ev(key, 10, Long.MIN_VALUE));
            early.add(new Ev(key, 20, Long.MIN_VALUE));
        }
        early.add(new Ev("a", 600, 500)); // the watermark 500 fires [0, 100) of every key
        append(logDir, codec, early.toArray(new Ev[0]));

        CollectSink<String> firstOut = Sinks.collect();
        JobHandle first =
                sessionCounts(
                                Sources.logUnbounded(logDir, "events", codec),
                                null,
                                firstOut,
                                Sinks.collect(),
                                1)
                        .start();
        while (firstOut.results().size() < keys.size()) {
            if (first.isDone()) {
                first.await();
                throw new AssertionError("the job ended before window [0, 100) fired");
            }
            Thread.onSpinWait();
        }
        Path savepoint =
                first.stopWithSavepoint(dir.resolve("sp")).get(30, TimeUnit.SECONDS).path();
        first.await();
        assertThat(firstOut.results())
                .containsExactlyInAnyOrderElementsOf(
                        keys.stream().map(key -> key + ",0,2").toList());

        List<Ev> lateOnes = keys.stream().map(key -> new Ev(key, 50, Long.MIN_VALUE)).toList();
        append(logDir, codec, lateOnes.toArray(new Ev[0])); // all behind the watermark 500
        CollectSink<String> secondOut = Sinks.collect();
        CollectSink<Ev> secondLate = Sinks.collect();
        // 1 -> 3: two of the three window subtasks are new; the keys spread over all three.
        sessionCounts(Sources.log(logDir, "events", codec), savepoint, secondOut, secondLate, 3)
                .run();

        assertThat(secondOut.results()).containsExactly("a,600,1");
        assertThat(secondLate.results()).containsExactlyInAnyOrderElementsOf(lateOnes);
    }

    private static void append(Path logDir, Codec<Ev> codec, Ev... events) {
        try (DurableLog log = DurableLog.open(logDir, LogOptions.defaults())) {
            if (!log.hasTopic("events")) {
                log.createTopic("events", 1);
            }
            List<byte[]> records = new ArrayList<>();
            for (Ev event : events) {
                records.add(codec.toBytes(event));
            }
            log.append("events", 0, records);
            log.flush();
        }
    }
}
