package dev.weir.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.api.codec.Codecs;
import dev.weir.api.function.AggregateFunction;
import dev.weir.api.sink.CollectSink;
import dev.weir.api.sink.Sinks;
import dev.weir.api.source.Sources;
import dev.weir.api.time.WatermarkGenerator;
import dev.weir.api.time.WatermarkStrategy;
import dev.weir.api.window.TimeWindow;
import dev.weir.api.window.WindowAssigner;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Windows on keyed streams: tumbling, sliding and session windows in event time, allowed lateness
 * with updated results, late records to a side output, processing-time windows.
 */
class WindowsTest {
    /**
     * A test record: a key, an event time, and a watermark its generator emits just before it (or
     * {@link Long#MIN_VALUE} for none), so a test decides exactly where watermarks fall.
     */
    record Ev(String key, long time, long watermark) {
        static Ev of(String key, long time) {
            return new Ev(key, time, Long.MIN_VALUE);
        }

        static Ev after(long watermark, String key, long time) {
            return new Ev(key, time, watermark);
        }
    }

    /** Emits each record's watermark on the record (punctuated); nothing periodic. */
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

    /** Counts records; merges for sessions. */
    static final class Count<T> implements AggregateFunction<T, Long, Long> {
        @Override
        public Long createAccumulator() {
            return 0L;
        }

        @Override
        public Long add(T value, Long accumulator) {
            return accumulator + 1;
        }

        @Override
        public Long getResult(Long accumulator) {
            return accumulator;
        }

        @Override
        public Long merge(Long a, Long b) {
            return a + b;
        }
    }

    private static DataStream<Ev> events(Pipeline pipeline, List<Ev> events) {
        return pipeline.source("events", Sources.collection(events))
                .assignTimestampsAndWatermarks(
                        WatermarkStrategy.<Ev>forGenerator(Punctuated::new)
                                .withTimestampAssigner((ev, previous) -> ev.time()));
    }

    @Test
    void assignersPlaceTimestampsInTheirWindowsAlsoBeforeTheEpoch() {
        assertThat(WindowAssigner.tumbling(Duration.ofMillis(10)).assignWindows(-1))
                .containsExactly(new TimeWindow(-10, 0));
        assertThat(
                        WindowAssigner.tumbling(Duration.ofMillis(10), Duration.ofMillis(3))
                                .assignWindows(12))
                .containsExactly(new TimeWindow(3, 13));
        assertThat(
                        WindowAssigner.sliding(Duration.ofMillis(20), Duration.ofMillis(5))
                                .assignWindows(7))
                .containsExactly(
                        new TimeWindow(-10, 10),
                        new TimeWindow(-5, 15),
                        new TimeWindow(0, 20),
                        new TimeWindow(5, 25));
        assertThat(WindowAssigner.session(Duration.ofMillis(10)).assignWindows(7))
                .containsExactly(new TimeWindow(7, 17));
        assertThatThrownBy(() -> WindowAssigner.sliding(Duration.ofMillis(5), Duration.ofMillis(6)))
                .hasMessageContaining("slide");
    }

    @Test
    void tumblingEventTimeWindowsCountEachRecordOnceInItsWindowOrAsLate() throws Exception {
        long n = 20_000;
        long keys = 7;
        Pipeline pipeline =
                Pipeline.create("tumbling")
                        .parallelism(2)
                        .autoWatermarkInterval(Duration.ofMillis(1));
        OutputTag<Long> late = OutputTag.of("late");
        CollectSink<String> results = Sinks.collect();
        CollectSink<Long> lateRecords = Sinks.collect();
        DataStream<String> windows =
                pipeline.source("n", Sources.sequence(1, n, 4, 0))
                        .assignTimestampsAndWatermarks(
                                WatermarkStrategy.<Long>forBoundedOutOfOrderness(
                                                Duration.ofMillis(50))
                                        .withTimestampAssigner((v, previous) -> skewed(v)))
                        .keyBy(v -> v % keys)
                        .window(WindowAssigner.tumbling(Duration.ofMillis(100)))
                        .sideOutputLateData(late)
                        .aggregate(
                                "counts",
                                new Count<Long>(),
                                Codecs.LONG,
                                (key, context, counts, out) ->
                                        out.collect(
                                                key
                                                        + ","
                                                        + context.window().start()
                                                        + ","
                                                        + counts.iterator().next()));
        windows.sink("out", results);
        windows.sideOutput(late).sink("late", lateRecords);
        pipeline.run();

        Map<String, Long> expected = new TreeMap<>();
        for (long v = 1; v <= n; v++) {
            expected.merge(v % keys + "," + Math.floorDiv(skewed(v), 100) * 100, 1L, Long::sum);
        }
        for (long v : lateRecords.results()) {
            expected.merge(v % keys + "," + Math.floorDiv(skewed(v), 100) * 100, -1L, Long::sum);
        }
        expected.values().removeIf(count -> count == 0);
        assertThat(lateRecords.results()).as("records 300 ms behind a 50 ms bound").isNotEmpty();
        assertThat(countsByWindow(results.results())).isEqualTo(expected);
    }

    /** Every 7th record is 300 ms older than its neighbours: often late. */
    static long skewed(long v) {
        return v % 7 == 0 ? v - 300 : v;
    }

    /** Parses "key,start,count" lines; fails on a window reported twice. */
    static Map<String, Long> countsByWindow(List<String> lines) {
        Map<String, Long> counts = new TreeMap<>();
        for (String line : lines) {
            int comma = line.lastIndexOf(',');
            Long previous =
                    counts.put(line.substring(0, comma), Long.parseLong(line.substring(comma + 1)));
            assertThat(previous).as("window %s emitted twice", line).isNull();
        }
        return counts;
    }

    @Test
    void slidingWindowsSumEveryWindowARecordFallsIn() throws Exception {
        long n = 2_000;
        Pipeline pipeline = Pipeline.create("sliding").autoWatermarkInterval(Duration.ofMillis(1));
        CollectSink<String> results = Sinks.collect();
        pipeline.source("n", Sources.sequence(1, n, 1, 0))
                .assignTimestampsAndWatermarks(
                        WatermarkStrategy.<Long>forMonotonousTimestamps()
                                .withTimestampAssigner((v, previous) -> v))
                .keyBy(v -> v % 3)
                .window(WindowAssigner.sliding(Duration.ofMillis(20), Duration.ofMillis(5)))
                .<String>reduce(
                        "sums",
                        Long::sum,
                        Codecs.LONG,
                        (key, context, sums, out) ->
                                out.collect(
                                        key
                                                + ","
                                                + context.window().start()
                                                + ","
                                                + sums.iterator().next()))
                .sink("out", results);
        pipeline.run();

        Map<String, Long> expected = new TreeMap<>();
        for (long v = 1; v <= n; v++) {
            for (long start = Math.floorDiv(v, 5) * 5; start > v - 20; start -= 5) {
                expected.merge(v % 3 + "," + start, v, Long::sum);
            }
        }
        assertThat(countsByWindow(results.results())).isEqualTo(expected);
    }

    /** Sessions of gap 10 where a late-arriving record bridges two sessions into one. */
    static List<Ev> sessionEvents() {
        return List.of(
                Ev.of("a", 0), // [0,10)
                Ev.of("a", 30), // [30,40)
                Ev.of("b", 5), // b: [5,15)
                Ev.of("a", 15), // [15,25): touches neither
                Ev.of("a", 8), // [8,18) bridges [0,10) and [15,25) into [0,25)
                Ev.after(100, "a", 33), // [30,43); then the watermark passes 100
                Ev.of("a", 1), // behind the watermark: late
                Ev.of("a", 200)); // [200,210), fired by the end of input
    }

    static final List<String> SESSIONS =
            List.of("a,[0, 25),3", "b,[5, 15),1", "a,[30, 43),2", "a,[200, 210),1");

    @Test
    void sessionWindowsMergeIncrementally() throws Exception {
        Pipeline pipeline = Pipeline.create("sessions");
        OutputTag<Ev> late = OutputTag.of("late");
        CollectSink<String> results = Sinks.collect();
        CollectSink<Ev> lateRecords = Sinks.collect();
        DataStream<String> windows =
                events(pipeline, sessionEvents())
                        .keyBy(Ev::key)
                        .window(WindowAssigner.session(Duration.ofMillis(10)))
                        .sideOutputLateData(late)
                        .aggregate(
                                "sessions",
                                new Count<Ev>(),
                                Codecs.LONG,
                                (key, context, counts, out) ->
                                        out.collect(
                                                key
                                                        + ","
                                                        + context.window()
                                                        + ","
                                                        + counts.iterator().next()));
        windows.sink("out", results);
        windows.sideOutput(late).sink("late", lateRecords);
        pipeline.run();

        assertThat(results.results()).containsExactlyInAnyOrderElementsOf(SESSIONS);
        assertThat(lateRecords.results()).containsExactly(Ev.of("a", 1));
    }

    @Test
    void sessionWindowsMergeTheRecordsAProcessFunctionSees() throws Exception {
        Pipeline pipeline = Pipeline.create("sessions-process");
        CollectSink<String> results = Sinks.collect();
        events(pipeline, sessionEvents())
                .keyBy(Ev::key)
                .window(WindowAssigner.session(Duration.ofMillis(10)))
                .<String>process(
                        "sessions",
                        (key, context, all, out) -> {
                            List<Long> times = new ArrayList<>();
                            all.forEach(ev -> times.add(ev.time()));
                            times.sort(null);
                            out.collect(key + "," + context.window() + "," + times);
                        },
                        Codecs.record(Ev.class))
                .sink("out", results);
        pipeline.run();

        assertThat(results.results())
                .containsExactlyInAnyOrder(
                        "a,[0, 25),[0, 8, 15]",
                        "b,[5, 15),[5]",
                        "a,[30, 43),[30, 33]",
                        "a,[200, 210),[200]");
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void allowedLatenessFiresUpdatedResultsAndSendsLaterRecordsToTheSideOutput(boolean incremental)
            throws Exception {
        Pipeline pipeline = Pipeline.create("lateness");
        OutputTag<Ev> late = OutputTag.of("late");
        CollectSink<String> results = Sinks.collect();
        CollectSink<Ev> lateRecords = Sinks.collect();
        List<Ev> input =
                List.of(
                        Ev.of("a", 1),
                        Ev.of("a", 5),
                        Ev.after(12, "a", 15), // [0,10) fires: 2
                        Ev.of("a", 3), // within the lateness: [0,10) fires again: 3
                        Ev.after(30, "a", 31), // [10,20) fires: 1; [0,10) is dropped at 29
                        Ev.of("a", 2), // too late for [0,10): side output
                        Ev.of("a", 19)); // [10,20) fires again: 2; the end fires [30,40): 1
        WindowedStream<String, Ev> windowed =
                events(pipeline, input)
                        .keyBy(Ev::key)
                        .window(WindowAssigner.tumbling(Duration.ofMillis(10)))
                        .allowedLateness(Duration.ofMillis(20))
                        .sideOutputLateData(late);
        DataStream<String> windows =
                incremental
                        ? windowed.aggregate(
                                "windows",
                                new Count<Ev>(),
                                Codecs.LONG,
                                (key, context, counts, out) ->
                                        out.collect(
                                                context.window() + "=" + counts.iterator().next()))
                        : windowed.process(
                                "windows",
                                (key, context, all, out) -> {
                                    long count = 0;
                                    for (Ev ignored : all) {
                                        count++;
                                    }
                                    out.collect(context.window() + "=" + count);
                                },
                                Codecs.record(Ev.class));
        windows.sink("out", results);
        windows.sideOutput(late).sink("late", lateRecords);
        pipeline.run();

        assertThat(results.results())
                .containsExactly(
                        "[0, 10)=2", "[0, 10)=3", "[10, 20)=1", "[10, 20)=2", "[30, 40)=1");
        assertThat(lateRecords.results()).containsExactly(Ev.of("a", 2));
    }

    @Test
    void processingTimeWindowsCountEveryRecordOfABoundedInput() throws Exception {
        long n = 5_000;
        Pipeline pipeline = Pipeline.create("processing-time").parallelism(2);
        CollectSink<String> results = Sinks.collect();
        pipeline.source("n", Sources.sequence(1, n, 2, 0))
                .keyBy(v -> v % 5)
                .window(WindowAssigner.tumbling(Duration.ofHours(1)).inProcessingTime())
                .<Long, Long, String>aggregate(
                        "counts",
                        new Count<Long>(),
                        Codecs.LONG,
                        (key, context, counts, out) -> {
                            assertThat(context.window().start() % 3_600_000).isZero();
                            out.collect(
                                    key
                                            + ","
                                            + context.window().start()
                                            + ","
                                            + counts.iterator().next());
                        })
                .sink("out", results);
        pipeline.run();

        Map<String, Long> counts = countsByWindow(results.results());
        assertThat(counts.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(n);
        assertThat(counts.keySet().stream().map(k -> k.substring(0, k.indexOf(','))).distinct())
                .containsExactlyInAnyOrder("0", "1", "2", "3", "4");
    }

    @Test
    void eventTimeWindowsWithoutTimestampsFailNamingTheFix() {
        Pipeline pipeline = Pipeline.create("no-timestamps");
        pipeline.source("n", Sources.sequence(1, 10))
                .keyBy(v -> v % 2)
                .window(WindowAssigner.tumbling(Duration.ofMillis(10)))
                .reduce("sums", Long::sum, Codecs.LONG)
                .sink("out", Sinks.collect());
        assertThatThrownBy(pipeline::run)
                .hasStackTraceContaining("assignTimestampsAndWatermarks before keyBy");
    }
}
