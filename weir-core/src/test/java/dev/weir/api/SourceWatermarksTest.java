package dev.weir.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.api.checkpoint.CheckpointConfig;
import dev.weir.api.checkpoint.CheckpointView;
import dev.weir.api.codec.Codecs;
import dev.weir.api.function.Collector;
import dev.weir.api.sink.CollectSink;
import dev.weir.api.sink.FileSink;
import dev.weir.api.sink.Sinks;
import dev.weir.api.source.ReadStatus;
import dev.weir.api.source.Source;
import dev.weir.api.source.SourceContext;
import dev.weir.api.source.SourceReader;
import dev.weir.api.source.Sources;
import dev.weir.api.time.WatermarkStrategy;
import dev.weir.api.window.WindowAssigner;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code Pipeline.source(name, source, watermarks)}: event time assigned per split inside the
 * source, as Flink's {@code fromSource} does.
 */
class SourceWatermarksTest {
    @TempDir Path dir;

    /**
     * Two splits in one subtask: split "ahead" holds times 1000..1999, split "behind" 0..999. A
     * generator that emits a watermark on every record (timestamp - 1) makes the subtask-wide
     * assigner after the source drop "behind" as late once "ahead" was read; per split, nothing is
     * late.
     */
    @Test
    void aSplitReadAheadDoesNotMakeAnotherSplitsRecordsLate() throws Exception {
        assertThat(lateRecords(true)).as("per split, in the source").isEmpty();
        assertThat(lateRecords(false))
                .as("one generator after the source (control: the test can fail)")
                .isNotEmpty();
    }

    private List<Long> lateRecords(boolean inSource) throws Exception {
        Pipeline pipeline = Pipeline.create("per-split").parallelism(1).batchSize(100);
        OutputTag<Long> late = OutputTag.of("late");
        CollectSink<Long> counts = Sinks.collect();
        CollectSink<Long> lateRecords = Sinks.collect();
        WatermarkStrategy<Long> punctuated =
                WatermarkStrategy.<Long>forGenerator(PunctuatedGenerator::new)
                        .withTimestampAssigner((v, previous) -> v);
        Source<Long> source = new TwoSplits();
        DataStream<Long> numbers =
                inSource
                        ? pipeline.source("numbers", source, punctuated)
                        : pipeline.source("numbers", source)
                                .assignTimestampsAndWatermarks(punctuated);
        DataStream<Long> windows =
                numbers.keyBy(v -> 0L)
                        .window(WindowAssigner.tumbling(Duration.ofMillis(100)))
                        .sideOutputLateData(late)
                        .aggregate(
                                "counts",
                                new WindowsTest.Count<Long>(),
                                Codecs.LONG,
                                (key, context, each, out) -> out.collect(each.iterator().next()));
        windows.sink("out", counts);
        windows.sideOutput(late).sink("late", lateRecords);
        pipeline.run();
        long counted = counts.results().stream().mapToLong(Long::longValue).sum();
        assertThat(counted + lateRecords.results().size())
                .as("every record counted")
                .isEqualTo(2000);
        return lateRecords.results();
    }

    /** Emits {@code timestamp - 1} on every record: a watermark per record. */
    /**
     * A watermark the generator emits on a record goes out right after that record, before the
     * next, even though the source hands its records on a poll at a time: record v (timestamp v,
     * watermark v - 1 after it) sees exactly the watermark of record v - 1 downstream. Sooner would
     * make it late; later would hold event time back for the rest of the poll.
     */
    @ParameterizedTest(name = "source then {0}")
    @ValueSource(strings = {"keyBy", "map", "blocking map"})
    void aWatermarkEmittedOnARecordFollowsItAndPrecedesTheNext(String next) throws Exception {
        Pipeline pipeline = Pipeline.create("punctuated").parallelism(1).batchSize(1000);
        List<Long> numbers = new ArrayList<>();
        for (long v = 1; v <= 5000; v++) {
            numbers.add(v);
        }
        CollectSink<String> wrong = Sinks.collect();
        DataStream<Long> stamped =
                pipeline.source(
                        "numbers",
                        Sources.collection(numbers),
                        WatermarkStrategy.<Long>forGenerator(PunctuatedGenerator::new)
                                .withTimestampAssigner((v, previous) -> v));
        // Three ways out of the source, each stamping in another place: the keyed writer stamps
        // each record it takes; a chained map gets them stamped by the split; a blocking map runs
        // in a task of its own, so an unkeyed writer stamps them.
        if (next.equals("map")) {
            stamped = stamped.map(v -> v);
        } else if (next.equals("blocking map")) {
            stamped = stamped.map(v -> v).blocking();
        }
        stamped.keyBy(v -> v % 7)
                .<String>process(
                        "check",
                        () ->
                                (value, context, out) -> {
                                    long seen = context.timers().currentWatermark();
                                    long expected = value == 1 ? Long.MIN_VALUE : value - 2;
                                    if (seen != expected) {
                                        out.collect(value + " saw " + seen);
                                    }
                                })
                .sink("wrong", wrong);
        pipeline.run();
        assertThat(wrong.results()).isEmpty();
    }

    static final class PunctuatedGenerator implements dev.weir.api.time.WatermarkGenerator<Long> {
        @Override
        public void onEvent(Long record, long timestamp, WatermarkOutput output) {
            output.emit(timestamp - 1);
        }

        @Override
        public void onPeriodicEmit(WatermarkOutput output) {}
    }

    @Test
    void aStrategyWithoutATimestampAssignerIsRefusedWithTheFix() {
        Pipeline pipeline = Pipeline.create("no-assigner");
        assertThatThrownBy(
                        () ->
                                pipeline.source(
                                        "numbers",
                                        Sources.sequence(1, 10),
                                        WatermarkStrategy.forMonotonousTimestamps()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("source 'numbers'")
                .hasMessageContaining("withTimestampAssigner");
    }

    /**
     * Each split's watermark is in the checkpoint with its position: the final checkpoint of a
     * bounded job holds, per split, the watermark its generator reached (here its last time - 1).
     */
    @Test
    void eachSplitsWatermarkIsCheckpointedWithItsPosition() throws Exception {
        Path checkpoints = dir.resolve("checkpoints");
        Pipeline pipeline =
                Pipeline.create("split-watermarks")
                        .parallelism(1)
                        .checkpointing(CheckpointConfig.exactlyOnce(Duration.ZERO, checkpoints));
        CollectSink<Long> out = Sinks.collect();
        pipeline.source(
                        "numbers",
                        new TwoSplits(),
                        WatermarkStrategy.<Long>forGenerator(PunctuatedGenerator::new)
                                .withTimestampAssigner((v, previous) -> v))
                .sink("out", out);
        pipeline.run();
        assertThat(out.results()).hasSize(2000);
        Map<String, Long> watermarks =
                CheckpointView.latest(checkpoints).orElseThrow().splitWatermarks("numbers");
        assertThat(watermarks).containsEntry("ahead", 1998L).containsEntry("behind", 998L);
    }

    /**
     * A restore starts each split from its checkpointed watermark: records replayed after it that
     * were on time before are on time again, and the job's results equal an uninterrupted run's.
     */
    @Test
    void aRestoredJobCountsTheSameWindows() throws Exception {
        List<String> uninterrupted = windowCounts(dir.resolve("a"), -1);
        List<String> restored = windowCounts(dir.resolve("b"), 1500);
        assertThat(uninterrupted).hasSize(20);
        assertThat(restored).isEqualTo(uninterrupted);
    }

    private List<String> windowCounts(Path run, long failAt) throws Exception {
        Path checkpoints = run.resolve("checkpoints");
        Pipeline pipeline =
                Pipeline.create("restore")
                        .parallelism(1)
                        .batchSize(50)
                        .checkpointing(
                                CheckpointConfig.exactlyOnce(Duration.ofMillis(1), checkpoints))
                        .restartStrategy(RestartStrategy.fixedDelay(3, Duration.ZERO));
        OutputTag<Long> late = OutputTag.of("late");
        CollectSink<Long> lateRecords = Sinks.collect();
        FailOnce fail = new FailOnce(failAt);
        DataStream<Long> windows =
                pipeline.source(
                                "numbers",
                                new TwoSplits(),
                                WatermarkStrategy.<Long>forGenerator(PunctuatedGenerator::new)
                                        .withTimestampAssigner((v, previous) -> v))
                        .map(fail::pass)
                        .keyBy(v -> 0L)
                        .window(WindowAssigner.tumbling(Duration.ofMillis(100)))
                        .sideOutputLateData(late)
                        .aggregate(
                                "counts",
                                new WindowsTest.Count<Long>(),
                                Codecs.LONG,
                                (key, context, each, collector) ->
                                        collector.collect(
                                                context.window().start() * 10_000
                                                        + each.iterator().next()));
        windows.sink("out", FileSink.to(run.resolve("out")));
        windows.sideOutput(late).sink("late", lateRecords);
        pipeline.run();
        assertThat(lateRecords.results()).isEmpty();
        assertThat(fail.failed).as("the failure was injected").isEqualTo(failAt >= 0);
        List<String> sorted = new ArrayList<>(FileSink.readCommitted(run.resolve("out")));
        sorted.sort(null);
        return sorted;
    }

    /** Throws once, at record {@code at}. */
    static final class FailOnce implements java.io.Serializable {
        private final long at;
        private boolean failed;

        FailOnce(long at) {
            this.at = at;
        }

        Long pass(Long v) {
            if (v == at && !failed) {
                failed = true;
                throw new IllegalStateException("injected failure at " + v);
            }
            return v;
        }
    }

    /** Split "ahead" holds 1000..1999, split "behind" 0..999; replayable by index. */
    static final class TwoSplits implements Source<Long> {
        @Override
        public String kind() {
            return "two-splits";
        }

        @Override
        public boolean isReplayable() {
            return true;
        }

        @Override
        public List<String> splits(int parallelism) {
            return List.of("ahead", "behind");
        }

        @Override
        public SourceReader<Long> openReader(String split, SourceContext context) {
            long first = split.equals("ahead") ? 1000 : 0;
            return new SourceReader<>() {
                long index;

                @Override
                public ReadStatus poll(Collector<Long> out, int maxRecords) {
                    for (int i = 0; i < maxRecords && index < 1000; i++) {
                        out.collect(first + index++);
                    }
                    return index < 1000 ? ReadStatus.MORE_AVAILABLE : ReadStatus.END_OF_INPUT;
                }

                @Override
                public long position() {
                    return index;
                }

                @Override
                public void seek(long position) {
                    index = position;
                }
            };
        }
    }
}
