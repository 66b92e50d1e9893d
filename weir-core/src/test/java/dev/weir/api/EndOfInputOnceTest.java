package dev.weir.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.api.checkpoint.CheckpointConfig;
import dev.weir.api.codec.Codecs;
import dev.weir.api.function.Collector;
import dev.weir.api.function.KeyedProcessFunction;
import dev.weir.api.sink.CollectSink;
import dev.weir.api.sink.FileSink;
import dev.weir.api.sink.Sinks;
import dev.weir.api.source.Sources;
import dev.weir.api.state.ValueState;
import dev.weir.api.testing.FaultPoint;
import dev.weir.api.testing.Faults;
import dev.weir.api.time.WatermarkGenerator;
import dev.weir.api.time.WatermarkStrategy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a function emits at the end of input is committed once, however the job gets there again: a
 * restart that restores the final checkpoint (its commit failed) or a finished job started again on
 * its directory used to call {@code onEndOfInput} a second time and commit its output twice. And a
 * watermark a generator emits on a record does not overtake that record.
 */
class EndOfInputOnceTest {
    @TempDir Path dir;

    @AfterEach
    void disarm() {
        Faults.disarm();
    }

    /** Sums per key; at the end of input emits {@code END,key,sum} for every key. */
    static final class SumsAtEnd implements KeyedProcessFunction<Long, Long, String> {
        private transient ValueState<Long> sum;

        @Override
        public void open(OpenContext context) {
            sum = context.states().valueState("sum", Codecs.LONG);
        }

        @Override
        public void process(Long value, Context<Long, String> context, Collector<String> out) {
            Long current = sum.value();
            sum.update((current == null ? 0 : current) + value);
        }

        @Override
        public void onEndOfInput(EndOfInputContext<Long, String> context, Collector<String> out)
                throws Exception {
            context.forEachKey(key -> out.collect("END," + key + "," + sum.value()));
        }
    }

    private Pipeline job() {
        // Only the final checkpoint: the interval is longer than the job.
        Pipeline pipeline =
                Pipeline.create("end-once")
                        .parallelism(2)
                        .checkpointing(
                                CheckpointConfig.exactlyOnce(
                                        Duration.ofMinutes(2), dir.resolve("chk")))
                        .restartStrategy(RestartStrategy.fixedDelay(3, Duration.ZERO));
        pipeline.source("numbers", Sources.sequence(1, 100))
                .keyBy(n -> n % 3)
                .process("sums", SumsAtEnd::new)
                .sink("out", FileSink.to(dir.resolve("out")));
        return pipeline;
    }

    private List<String> committed() throws Exception {
        return FileSink.readCommitted(dir.resolve("out")).stream().sorted().toList();
    }

    private static final List<String> ENDS = List.of("END,0,1683", "END,1,1717", "END,2,1650");

    @Test
    void aRestartFromTheFinalCheckpointDoesNotEmitTheEndOfInputAgain() throws Exception {
        Faults.throwAt(FaultPoint.SINK_AFTER_COMMIT, 1); // the final checkpoint's first commit
        JobResult result = job().run();
        assertThat(result.restarts()).isPositive();
        assertThat(committed()).isEqualTo(ENDS);
    }

    @Test
    void aFinishedJobStartedAgainDoesNotEmitTheEndOfInputAgain() throws Exception {
        job().run();
        job().run(); // resume "latest": the final checkpoint
        assertThat(committed()).isEqualTo(ENDS);
    }

    /** Emits a watermark equal to each record's timestamp (a punctuated generator). */
    static final class EveryRecord implements WatermarkGenerator<Long> {
        @Override
        public void onEvent(Long record, long timestamp, WatermarkOutput output) {
            output.emit(timestamp);
        }

        @Override
        public void onPeriodicEmit(WatermarkOutput output) {}
    }

    /** Emits each record that arrives at or behind the watermark. */
    static final class LateCheck implements KeyedProcessFunction<Long, Long, Long> {
        @Override
        public void process(Long value, Context<Long, Long> context, Collector<Long> out) {
            if (context.timers().currentWatermark() >= context.timestamp()) {
                out.collect(value);
            }
        }
    }

    @Test
    void aWatermarkEmittedOnARecordDoesNotOvertakeIt() throws Exception {
        CollectSink<Long> late = Sinks.collect();
        Pipeline pipeline = Pipeline.create("punctuated").parallelism(2);
        pipeline.source("numbers", Sources.sequence(1, 20_000))
                .assignTimestampsAndWatermarks(
                        WatermarkStrategy.<Long>forGenerator(EveryRecord::new)
                                .withTimestampAssigner((n, previous) -> n))
                .keyBy(n -> n % 7)
                .process("late-check", LateCheck::new)
                .sink("late", late);
        pipeline.run();
        assertThat(late.results()).as("records behind their own watermark").isEmpty();
    }
}
