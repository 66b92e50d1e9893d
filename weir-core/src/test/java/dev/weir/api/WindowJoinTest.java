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
import dev.weir.api.window.WindowAssigner;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The windowed join of two keyed streams: left v (time v) meets right w (time 2w) of the same key
 * (mod 3) when both fall in the same 10 ms window; each pair once, also through a failure.
 */
class WindowJoinTest {
    static final long N = 1_000;

    @TempDir Path dir;

    @AfterEach
    void disarm() {
        Faults.disarm();
    }

    static Pipeline joinJob(Pipeline pipeline, long rate, Sink<String> sink) {
        KeyedStream<Long, Long> lefts =
                pipeline.source("lefts", Sources.sequence(1, N, 2, rate))
                        .assignTimestampsAndWatermarks(
                                WatermarkStrategy.<Long>forMonotonousTimestamps()
                                        .withTimestampAssigner((v, previous) -> v))
                        .keyBy(v -> v % 3);
        KeyedStream<Long, Long> rights =
                pipeline.source("rights", Sources.sequence(1, N, 2, rate))
                        .assignTimestampsAndWatermarks(
                                WatermarkStrategy.<Long>forMonotonousTimestamps()
                                        .withTimestampAssigner((v, previous) -> 2 * v))
                        .keyBy(v -> v % 3);
        lefts.windowJoin(rights, WindowAssigner.tumbling(Duration.ofMillis(10)))
                .<String>apply(
                        "pairs",
                        (key, window, l, r, out) -> {
                            assertThat(l % 3).isEqualTo(key);
                            assertThat(window.start()).isEqualTo(l / 10 * 10);
                            out.collect(l + "," + r);
                        })
                .sink("out", sink);
        return pipeline;
    }

    static List<String> expectedPairs() {
        List<String> pairs = new ArrayList<>();
        for (long l = 1; l <= N; l++) {
            for (long r = 1; r <= N; r++) {
                if (l % 3 == r % 3 && l / 10 == 2 * r / 10) {
                    pairs.add(l + "," + r);
                }
            }
        }
        return pairs;
    }

    @Test
    void eachLeftMeetsTheRightRecordsOfItsKeyAndWindow() throws Exception {
        CollectSink<String> sink = Sinks.collect();
        joinJob(Pipeline.create("window-join").parallelism(2), 0, sink).run();
        assertThat(sink.results()).containsExactlyInAnyOrderElementsOf(expectedPairs());
    }

    @Test
    void eachPairIsCommittedOnceThroughAFailure() throws Exception {
        Faults.throwAt(FaultPoint.SINK_AFTER_PRECOMMIT, 3);
        Pipeline pipeline =
                Pipeline.create("window-join-restore")
                        .parallelism(2)
                        .checkpointing(
                                CheckpointConfig.exactlyOnce(
                                        Duration.ofMillis(10), dir.resolve("chk")))
                        .restartStrategy(RestartStrategy.fixedDelay(3, Duration.ZERO));
        Path out = dir.resolve("out");
        JobResult result = joinJob(pipeline, 5_000, FileSink.<String>to(out)).run();
        assertThat(result.restarts()).isPositive();
        assertThat(FileSink.readCommitted(out))
                .containsExactlyInAnyOrderElementsOf(expectedPairs());
    }
}
