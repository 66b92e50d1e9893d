package dev.weir.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.api.checkpoint.CheckpointConfig;
import dev.weir.api.codec.Codecs;
import dev.weir.api.function.Collector;
import dev.weir.api.function.KeyedProcessFunction;
import dev.weir.api.sink.CollectSink;
import dev.weir.api.sink.Sinks;
import dev.weir.api.source.Sources;
import dev.weir.api.state.MapState;
import dev.weir.api.state.ValueState;
import dev.weir.api.time.TimeDomain;
import dev.weir.api.time.WatermarkStrategy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The keyed process function's context: record time, event- and processing-time timers
 * (checkpointed, restored and rescaled with keyed state), side outputs and the end-of-input
 * callback.
 */
class ProcessContextTest {
    @TempDir Path dir;

    /** What a function saw or fired: kind, key, time. */
    record Seen(String kind, long key, long time) {}

    /**
     * Sums each key's values in windows of 10 ms of event time: a record adds to its window's sum
     * and registers a timer at the end of its window; the timer emits the window's sum and drops
     * it. Emits {@code (window, key, sum)}, and {@code (early, key, 0)} for a timer that fired
     * before the end of input.
     */
    static final class TenMillisecondSums implements KeyedProcessFunction<Long, Long, Seen> {
        private transient MapState<Long, Long> sums;

        @Override
        public void open(OpenContext context) {
            sums = context.states().mapState("sums", Codecs.LONG, Codecs.LONG);
        }

        @Override
        public void process(Long value, Context<Long, Seen> context, Collector<Seen> out) {
            assertThat(context.hasTimestamp()).isTrue();
            assertThat(context.timestamp()).isEqualTo(value); // timestamp = value, see below
            long windowEnd = value / 10 * 10 + 9;
            context.timers().registerEventTimeTimer(windowEnd);
            Long sum = sums.get(windowEnd);
            sums.put(windowEnd, (sum == null ? 0 : sum) + value);
        }

        @Override
        public void onTimer(
                long timestamp, OnTimerContext<Long, Seen> context, Collector<Seen> out) {
            assertThat(context.timeDomain()).isEqualTo(TimeDomain.EVENT_TIME);
            assertThat(context.timestamp()).isEqualTo(timestamp);
            assertThat(context.timers().currentWatermark()).isGreaterThanOrEqualTo(timestamp);
            out.collect(new Seen("window:" + timestamp, context.key(), sums.get(timestamp)));
            sums.remove(timestamp);
            if (context.timers().currentWatermark() < Long.MAX_VALUE) {
                out.collect(new Seen("early", context.key(), 0));
            }
        }
    }

    private static Map<Long, Long> expectedWindowSums(long n, long keys) {
        Map<Long, Long> sums = new TreeMap<>();
        for (long v = 1; v <= n; v++) {
            sums.merge((v % keys) * 1_000_000 + v / 10, v, Long::sum);
        }
        return sums;
    }

    @Test
    void eventTimeTimersFireOncePerKeyAndWindowWhenTheWatermarkPasses() throws Exception {
        long n = 2_000;
        long keys = 3;
        Pipeline pipeline =
                Pipeline.create("windows")
                        .parallelism(2)
                        .autoWatermarkInterval(Duration.ofMillis(1));
        CollectSink<Seen> sink = Sinks.collect();
        pipeline.source("n", Sources.sequence(1, n, 2, 20_000))
                .assignTimestampsAndWatermarks(
                        WatermarkStrategy.<Long>forBoundedOutOfOrderness(Duration.ofMillis(20))
                                .withTimestampAssigner((value, previous) -> value))
                .keyBy(v -> v % keys)
                .process("sums", TenMillisecondSums::new)
                .sink("out", sink);
        pipeline.run();

        Map<Long, Long> byKeyAndWindow = new TreeMap<>();
        long early = 0;
        for (Seen seen : sink.results()) {
            if (seen.kind().equals("early")) {
                early++;
            } else {
                byKeyAndWindow.merge(seen.key(), seen.time(), Long::sum);
            }
        }
        assertThat(byKeyAndWindow.values().stream().mapToLong(Long::longValue).sum())
                .isEqualTo(n * (n + 1) / 2);
        assertThat(sink.results().stream().filter(s -> s.kind().startsWith("window")).count())
                .as("one result per key and window")
                .isEqualTo(expectedWindowSums(n, keys).size());
        assertThat(early).as("timers fired by watermarks before the end").isPositive();
    }

    @Test
    void timersAreCheckpointedRestoredAfterAFailureAndRescaled() throws Exception {
        long n = 3_000;
        long keys = 5;
        AtomicBoolean failed = new AtomicBoolean();
        Path checkpoints = dir.resolve("chk");
        CollectSink<Seen> sink = Sinks.collect();
        Pipeline first =
                Pipeline.create("timers-restore")
                        .parallelism(2)
                        .checkpointing(
                                CheckpointConfig.exactlyOnce(Duration.ofMillis(2), checkpoints))
                        .restartStrategy(RestartStrategy.fixedDelay(1, Duration.ZERO));
        first.source("n", Sources.sequence(1, n, 4, 200_000))
                .assignTimestampsAndWatermarks(
                        WatermarkStrategy.<Long>forBoundedOutOfOrderness(Duration.ofMillis(50))
                                .withTimestampAssigner((value, previous) -> value))
                .map(
                        v -> {
                            if (v == 2_000 && failed.compareAndSet(false, true)) {
                                throw new IllegalStateException("injected");
                            }
                            return v;
                        })
                .keyBy(v -> v % keys)
                .process("sums", TenMillisecondSums::new)
                .sink("out", sink);
        JobResult result = first.run();
        assertThat(result.restarts()).isEqualTo(1);
        // Exactly-once state through the restart: the window sums add up (the collect sink may
        // repeat output emitted after the checkpoint, so count distinct windows).
        Map<String, Long> distinct = new TreeMap<>();
        for (Seen seen : sink.results()) {
            if (seen.kind().startsWith("window")) {
                distinct.put(seen.kind() + "/" + seen.key(), seen.time());
            }
        }
        assertThat(distinct.values().stream().mapToLong(Long::longValue).sum())
                .isEqualTo(n * (n + 1) / 2);
    }

    @Test
    void timersTravelWithTheirKeysWhenASavepointIsRestoredAtAnotherParallelism() throws Exception {
        long keys = 64;
        Path savepoints = dir.resolve("sp");
        CollectSink<Seen> firstSink = Sinks.collect();
        Pipeline first = timerJob(2, firstSink, keys, 1_000_000, 20_000);
        JobHandle job = first.start();
        while (firstSink.results().size() < keys) {
            Thread.onSpinWait();
        }
        Path savepoint = job.stopWithSavepoint(savepoints).get(30, TimeUnit.SECONDS).path();
        job.await();

        CollectSink<Seen> secondSink = Sinks.collect();
        // The same splits end right away: their restored positions lie past the new end.
        Pipeline second = timerJob(3, secondSink, keys, keys, 0).fromSavepoint(savepoint);
        second.run();
        // Every key registered one timer at 1,000,000 (far in event time); the end of input
        // fires each exactly once, on whichever of the 3 subtasks now owns its key group.
        List<Long> fired = new ArrayList<>();
        for (Seen seen : secondSink.results()) {
            if (seen.kind().equals("timer")) {
                fired.add(seen.key());
            }
        }
        assertThat(fired).hasSize((int) keys).doesNotHaveDuplicates();
    }

    /** Registers one event-time timer per key at 1,000,000; emits "first" and "timer". */
    private Pipeline timerJob(
            int parallelism, CollectSink<Seen> sink, long keys, long to, long rate) {
        Pipeline pipeline =
                Pipeline.create("timer-job")
                        .parallelism(parallelism)
                        .checkpointing(
                                CheckpointConfig.exactlyOnce(Duration.ZERO, dir.resolve("chk")));
        pipeline.source("n", Sources.sequence(1, to, 4, rate))
                .map(v -> v)
                .assignTimestampsAndWatermarks(
                        WatermarkStrategy.<Long>forMonotonousTimestamps()
                                .withTimestampAssigner((value, previous) -> 0L))
                .keyBy(v -> v % keys)
                .process(
                        "timers",
                        () ->
                                new KeyedProcessFunction<Long, Long, Seen>() {
                                    private transient ValueState<Boolean> seen;

                                    @Override
                                    public void open(OpenContext context) {
                                        seen = context.states().valueState("seen", Codecs.auto());
                                    }

                                    @Override
                                    public void process(
                                            Long value,
                                            Context<Long, Seen> ctx,
                                            Collector<Seen> out) {
                                        if (seen.value() == null) {
                                            seen.update(true);
                                            ctx.timers().registerEventTimeTimer(1_000_000);
                                            out.collect(new Seen("first", ctx.key(), 0));
                                        }
                                    }

                                    @Override
                                    public void onTimer(
                                            long at,
                                            OnTimerContext<Long, Seen> ctx,
                                            Collector<Seen> out) {
                                        out.collect(new Seen("timer", ctx.key(), at));
                                    }
                                })
                .sink("out", sink);
        return pipeline;
    }

    @Test
    void processingTimeTimersFireOnTheClock() throws Exception {
        CollectSink<Seen> sink = Sinks.collect();
        Pipeline pipeline = Pipeline.create("processing-time");
        pipeline.source("n", Sources.sequence(1, Long.MAX_VALUE - 1, 1, 1_000))
                .keyBy(v -> v % 2)
                .process(
                        "later",
                        () ->
                                new KeyedProcessFunction<Long, Long, Seen>() {
                                    @Override
                                    public void process(
                                            Long value,
                                            Context<Long, Seen> ctx,
                                            Collector<Seen> out) {
                                        if (value <= 2) {
                                            long now = ctx.timers().currentProcessingTime();
                                            ctx.timers().registerProcessingTimeTimer(now + 20);
                                            ctx.timers().registerProcessingTimeTimer(now + 20);
                                        }
                                    }

                                    @Override
                                    public void onTimer(
                                            long at,
                                            OnTimerContext<Long, Seen> ctx,
                                            Collector<Seen> out) {
                                        assertThat(ctx.timeDomain())
                                                .isEqualTo(TimeDomain.PROCESSING_TIME);
                                        assertThat(ctx.timers().currentProcessingTime())
                                                .isGreaterThanOrEqualTo(at);
                                        out.collect(new Seen("fired", ctx.key(), at));
                                    }
                                })
                .sink("out", sink);
        JobHandle job = pipeline.start();
        while (sink.results().size() < 2) {
            Thread.onSpinWait();
        }
        job.cancel();
        assertThatThrownBy(job::await).isNotNull();
        assertThat(sink.results()).extracting(Seen::key).containsExactlyInAnyOrder(0L, 1L);
    }

    @Test
    void sideOutputsCarryWhatTheFunctionSendsThere() throws Exception {
        OutputTag<String> odd = OutputTag.of("odd");
        Pipeline pipeline = Pipeline.create("side").parallelism(2);
        CollectSink<Long> evens = Sinks.collect();
        CollectSink<String> odds = Sinks.collect();
        DataStream<Long> main =
                pipeline.source("n", Sources.sequence(1, 100))
                        .keyBy(v -> v % 4)
                        .process(
                                "split",
                                () ->
                                        new KeyedProcessFunction<Long, Long, Long>() {
                                            @Override
                                            public void process(
                                                    Long value,
                                                    Context<Long, Long> ctx,
                                                    Collector<Long> out) {
                                                if (value % 2 == 0) {
                                                    out.collect(value);
                                                } else {
                                                    ctx.output(odd, "odd-" + value);
                                                }
                                            }
                                        });
        main.sink("evens", evens);
        main.sideOutput(odd).map(s -> s.toUpperCase()).sink("odds", odds);
        pipeline.run();
        assertThat(evens.results()).hasSize(50).allMatch(v -> v % 2 == 0);
        assertThat(odds.results()).hasSize(50).contains("ODD-1", "ODD-99");
    }

    @Test
    void theEndOfInputCallbackSeesEveryKeyWithItsState() throws Exception {
        Pipeline pipeline = Pipeline.create("final-counts").parallelism(2);
        CollectSink<Seen> sink = Sinks.collect();
        pipeline.source("n", Sources.sequence(1, 1000))
                .keyBy(v -> v % 7)
                .process(
                        "count",
                        () ->
                                new KeyedProcessFunction<Long, Long, Seen>() {
                                    private transient ValueState<Long> count;

                                    @Override
                                    public void open(OpenContext context) {
                                        count = context.states().valueState("count", Codecs.LONG);
                                    }

                                    @Override
                                    public void process(
                                            Long value,
                                            Context<Long, Seen> ctx,
                                            Collector<Seen> out) {
                                        count.update(
                                                (count.value() == null ? 0 : count.value()) + 1);
                                    }

                                    @Override
                                    public void onEndOfInput(
                                            EndOfInputContext<Long, Seen> ctx, Collector<Seen> out)
                                            throws Exception {
                                        ctx.forEachKey(
                                                key ->
                                                        out.collect(
                                                                new Seen(
                                                                        "final",
                                                                        key,
                                                                        count.value())));
                                    }
                                })
                .sink("out", sink);
        pipeline.run();
        assertThat(sink.results()).hasSize(7);
        assertThat(sink.results().stream().mapToLong(Seen::time).sum()).isEqualTo(1000);
    }
}
