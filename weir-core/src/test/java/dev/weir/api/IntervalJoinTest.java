package dev.weir.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.api.checkpoint.CheckpointConfig;
import dev.weir.api.sink.CollectSink;
import dev.weir.api.sink.FileSink;
import dev.weir.api.sink.Sink;
import dev.weir.api.sink.Sinks;
import dev.weir.api.source.Sources;
import dev.weir.api.testing.FaultPoint;
import dev.weir.api.testing.Faults;
import dev.weir.api.time.WatermarkStrategy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The interval join of two keyed streams: left l meets right r of the same key when {@code l.time -
 * 3 <= r.time <= l.time + 3}; each pair once, also through a failure and restore (the join task
 * aligns barriers over both inputs).
 */
class IntervalJoinTest {
    static final long N = 3_000;
    static final long KEYS = 5;

    @TempDir Path dir;

    @AfterEach
    void disarm() {
        Faults.disarm();
    }

    /** Left v has time 2v, right v has time 3v; key v mod 5. */
    static Pipeline joinJob(Pipeline pipeline, long rate, Sink<String> sink) {
        KeyedStream<Long, Long> lefts =
                pipeline.source("lefts", Sources.sequence(1, N, 2, rate))
                        .assignTimestampsAndWatermarks(
                                WatermarkStrategy.<Long>forMonotonousTimestamps()
                                        .withTimestampAssigner((v, previous) -> 2 * v))
                        .keyBy(v -> v % KEYS);
        KeyedStream<Long, Long> rights =
                pipeline.source("rights", Sources.sequence(1, N, 2, rate))
                        .assignTimestampsAndWatermarks(
                                WatermarkStrategy.<Long>forMonotonousTimestamps()
                                        .withTimestampAssigner((v, previous) -> 3 * v))
                        .keyBy(v -> v % KEYS);
        lefts.intervalJoin(rights)
                .between(Duration.ofMillis(-3), Duration.ofMillis(3))
                .<String>process(
                        "pairs",
                        (l, r, context, out) -> {
                            assertThat(context.leftTimestamp()).isEqualTo(2 * l);
                            assertThat(context.rightTimestamp()).isEqualTo(3 * r);
                            out.collect(l + "," + r);
                        })
                .sink("out", sink);
        return pipeline;
    }

    static List<String> expectedPairs() {
        List<String> pairs = new ArrayList<>();
        for (long l = 1; l <= N; l++) {
            for (long r = 1; r <= N; r++) {
                if (l % KEYS == r % KEYS && 2 * l - 3 <= 3 * r && 3 * r <= 2 * l + 3) {
                    pairs.add(l + "," + r);
                }
            }
        }
        return pairs;
    }

    /**
     * Records at or behind the join's watermark are not joined; with side outputs they come out
     * there (each side its own), instead of vanishing.
     */
    @Test
    void lateRecordsOfEachSideGoToTheirSideOutput() {
        try (dev.weir.api.testing.PipelineTestDriver driver =
                dev.weir.api.testing.PipelineTestDriver.create("late-join", dir.resolve("chk"))) {
            dev.weir.api.testing.TestInput<Long> lefts = driver.input("lefts");
            dev.weir.api.testing.TestInput<Long> rights = driver.input("rights");
            OutputTag<Long> lateLefts = OutputTag.of("late-lefts");
            OutputTag<Long> lateRights = OutputTag.of("late-rights");
            DataStream<String> pairs =
                    lefts.stream()
                            .keyBy(v -> 0L)
                            .intervalJoin(rights.stream().keyBy(v -> 0L))
                            .between(Duration.ofMillis(-5), Duration.ofMillis(5))
                            .sideOutputLeftLateData(lateLefts)
                            .sideOutputRightLateData(lateRights)
                            .<String>process(
                                    "pairs", (l, r, context, out) -> out.collect(l + "," + r));
            var joined = driver.output("out", pairs);
            var lateLeft = driver.output("late-left", pairs.sideOutput(lateLefts));
            var lateRight = driver.output("late-right", pairs.sideOutput(lateRights));
            driver.start();

            lefts.feedAt(100, 100L);
            rights.feedAt(103, 103L);
            lefts.advanceWatermark(200);
            rights.advanceWatermark(200);
            // The join has seen both watermarks once the checkpoint's barriers passed it (they
            // follow the watermarks on each input); only then is the join's watermark 200.
            driver.checkpoint();
            lefts.feedAt(150, 150L); // behind the join's watermark 200
            rights.feedAt(190, 190L);
            lefts.feedAt(300, 300L);
            rights.feedAt(302, 302L);
            driver.checkpoint();

            assertThat(joined.committed()).containsExactlyInAnyOrder("100,103", "300,302");
            assertThat(lateLeft.committed()).containsExactly(150L);
            assertThat(lateRight.committed()).containsExactly(190L);
        }
    }

    @Test
    void eachLeftMeetsTheRightRecordsOfItsKeyWithinTheInterval() throws Exception {
        CollectSink<String> sink = Sinks.collect();
        joinJob(Pipeline.create("join").parallelism(2), 0, sink).run();
        assertThat(sink.results()).containsExactlyInAnyOrderElementsOf(expectedPairs());
    }

    @Test
    void eachPairIsCommittedOnceThroughAFailureAndARestoreOfTheBuffers() throws Exception {
        Faults.throwAt(FaultPoint.SINK_AFTER_PRECOMMIT, 3);
        Pipeline pipeline =
                Pipeline.create("join-restore")
                        .parallelism(2)
                        .checkpointing(
                                CheckpointConfig.exactlyOnce(
                                        Duration.ofMillis(10), dir.resolve("chk")))
                        .restartStrategy(RestartStrategy.fixedDelay(3, Duration.ZERO));
        Path out = dir.resolve("out");
        JobResult result = joinJob(pipeline, 10_000, FileSink.<String>to(out)).run();
        assertThat(result.restarts()).isPositive();
        assertThat(FileSink.readCommitted(out))
                .containsExactlyInAnyOrderElementsOf(expectedPairs());
    }
}
