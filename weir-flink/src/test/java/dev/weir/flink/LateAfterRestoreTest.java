package dev.weir.flink;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.api.DataStream;
import dev.weir.api.JobListener;
import dev.weir.api.OutputTag;
import dev.weir.api.Pipeline;
import dev.weir.api.RestartStrategy;
import dev.weir.api.checkpoint.CheckpointConfig;
import dev.weir.api.checkpoint.CheckpointStats;
import dev.weir.api.codec.Codecs;
import dev.weir.api.function.AggregateFunction;
import dev.weir.api.function.Collector;
import dev.weir.api.plan.Runner;
import dev.weir.api.sink.FileSink;
import dev.weir.api.source.ReadStatus;
import dev.weir.api.source.Source;
import dev.weir.api.source.SourceContext;
import dev.weir.api.source.SourceReader;
import dev.weir.api.time.WatermarkGenerator;
import dev.weir.api.time.WatermarkStrategy;
import dev.weir.api.window.WindowAssigner;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A record that was late before a failure is late after the restore too, on Flink as on Weir: the
 * keyed step's watermark is checkpointed. Without it, Flink's watermark starts again from its
 * minimum, the replayed late record opens its window again, and the window is committed twice.
 *
 * <p>Deterministic: watermarks are punctuated (one per record), and the source holds back the late
 * record until two checkpoints completed after its window fired (it idles meanwhile, so barriers
 * pass); a map then fails once on the record after it.
 */
class LateAfterRestoreTest {
    static final long N = 3_000;
    static final long LATE = 1_500;

    static final AtomicBoolean FIRED = new AtomicBoolean();
    static final AtomicInteger CHECKPOINTS_AFTER_FIRE = new AtomicInteger();
    static final AtomicBoolean FAIL_ONCE = new AtomicBoolean();

    @TempDir Path dir;

    @Test
    void aRecordLateBeforeAFailureIsLateAfterTheRestoreOnWeirAndOnFlink() throws Exception {
        for (Runner runner : new Runner[] {null, FlinkRunner.local(1)}) {
            String name = runner == null ? "weir" : "flink";
            FIRED.set(false);
            CHECKPOINTS_AFTER_FIRE.set(0);
            FAIL_ONCE.set(true);
            Path out = dir.resolve(name + "-out");
            Path late = dir.resolve(name + "-late");
            Pipeline pipeline = pipeline(dir.resolve(name + "-chk"), out, late);
            if (runner == null) {
                pipeline.run();
            } else {
                pipeline.run(runner);
            }
            assertThat(FAIL_ONCE.get()).as("%s: the failure was injected", name).isFalse();
            List<String> window0 =
                    FileSink.readCommitted(out).stream().filter(l -> l.startsWith("0,")).toList();
            assertThat(window0)
                    .as("%s: window [0, 1000) committed once", name)
                    .containsExactly("0,99");
            assertThat(FileSink.readCommitted(late))
                    .as("%s: the late record, once", name)
                    .containsExactly(Long.toString(LATE));
        }
    }

    static Pipeline pipeline(Path checkpoints, Path out, Path late) {
        Pipeline pipeline =
                Pipeline.create("late-after-restore")
                        .parallelism(1)
                        .checkpointing(
                                CheckpointConfig.exactlyOnce(Duration.ofMillis(20), checkpoints))
                        .restartStrategy(RestartStrategy.fixedDelay(3, Duration.ZERO))
                        .listener(
                                new JobListener() {
                                    @Override
                                    public void onCheckpointComplete(CheckpointStats stats) {
                                        if (FIRED.get()) {
                                            CHECKPOINTS_AFTER_FIRE.incrementAndGet();
                                        }
                                    }
                                });
        OutputTag<Long> lateTag = OutputTag.of("late");
        DataStream<String> windows =
                pipeline.source(
                                "numbers",
                                new HeldBackSource(),
                                WatermarkStrategy.<Long>forGenerator(Punctuated::new)
                                        .withTimestampAssigner(
                                                (x, previous) -> x == LATE ? 100L : x * 10))
                        .map(LateAfterRestoreTest::failOnceAfterTheLateRecord)
                        .keyBy(x -> "k")
                        .window(WindowAssigner.tumbling(Duration.ofSeconds(1)))
                        .sideOutputLateData(lateTag)
                        .<Long, Long, String>aggregate(
                                "per-second",
                                new Count(),
                                Codecs.LONG,
                                (key, context, counts, collector) -> {
                                    if (context.window().start() == 0) {
                                        FIRED.set(true);
                                    }
                                    collector.collect(
                                            context.window().start()
                                                    + ","
                                                    + counts.iterator().next());
                                });
        windows.sink("out", FileSink.to(out));
        windows.sideOutput(lateTag).map(x -> Long.toString(x)).sink("late", FileSink.to(late));
        return pipeline;
    }

    static Long failOnceAfterTheLateRecord(Long x) {
        if (x == LATE + 1 && FAIL_ONCE.compareAndSet(true, false)) {
            throw new IllegalStateException("injected failure after the late record");
        }
        return x;
    }

    /** A watermark on every record: its time minus 21 ms (20 ms of out-of-orderness). */
    static final class Punctuated implements WatermarkGenerator<Long> {
        @Override
        public void onEvent(Long record, long timestamp, WatermarkOutput output) {
            output.emit(timestamp - 21);
        }

        @Override
        public void onPeriodicEmit(WatermarkOutput output) {}
    }

    static final class Count implements AggregateFunction<Long, Long, Long> {
        private static final long serialVersionUID = 1L;

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

        @Override
        public Long merge(Long a, Long b) {
            return a + b;
        }
    }

    /**
     * 1..N in one split, replayable; holds back the late record until two checkpoints completed
     * after window 0 fired (returning nothing meanwhile, so barriers pass).
     */
    static final class HeldBackSource implements Source<Long> {
        private static final long serialVersionUID = 1L;

        @Override
        public String kind() {
            return "held-back";
        }

        @Override
        public boolean isReplayable() {
            return true;
        }

        @Override
        public List<String> splits(int parallelism) {
            return List.of("all");
        }

        @Override
        public SourceReader<Long> openReader(String split, SourceContext context) {
            return new SourceReader<>() {
                long next = 1;

                @Override
                public ReadStatus poll(Collector<Long> out, int maxRecords) {
                    for (int i = 0; i < maxRecords && next <= N; i++) {
                        if (next == LATE && CHECKPOINTS_AFTER_FIRE.get() < 2) {
                            return ReadStatus.NOTHING_AVAILABLE;
                        }
                        out.collect(next++);
                    }
                    return next <= N ? ReadStatus.MORE_AVAILABLE : ReadStatus.END_OF_INPUT;
                }

                @Override
                public long position() {
                    return next;
                }

                @Override
                public void seek(long position) {
                    next = position;
                }
            };
        }
    }
}
