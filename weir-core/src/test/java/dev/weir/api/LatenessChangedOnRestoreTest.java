package dev.weir.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.api.checkpoint.CheckpointConfig;
import dev.weir.api.checkpoint.CheckpointStats;
import dev.weir.api.codec.Codecs;
import dev.weir.api.function.Collector;
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
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A window's allowed lateness changed between a checkpoint and the run that restores it (a new
 * release of the job): each window is still committed once. The first run stops by a failure after
 * a checkpoint holding window [0, 1000) (open, or fired and kept for its lateness); the second run
 * restores it with the other lateness and reads to the end of its bounded input.
 *
 * <p>Deterministic: a watermark comes with every record, and the source waits at a gate for the
 * checkpoint it needs (returning nothing meanwhile, so barriers pass).
 */
class LatenessChangedOnRestoreTest {
    @TempDir Path dir;

    /** The first run waits at the gate for this; set by the listener. */
    static final AtomicInteger CHECKPOINTS_AFTER_GATE = new AtomicInteger();

    static final AtomicBoolean AT_GATE = new AtomicBoolean();

    /** The first run fails on the record after the gate. */
    static final AtomicBoolean FAIL = new AtomicBoolean();

    /**
     * Raised from none: the window was open at the checkpoint, so it has no cleanup timer; after
     * firing it waits for one. Lowered to none: the window had fired before the checkpoint and
     * waited for its cleanup timer, which the new run must still honour, also when that timer falls
     * on the end of a later window of the same key (an old lateness of whole window sizes).
     */
    @ParameterizedTest(name = "lateness {0}")
    @ValueSource(
            strings = {
                "0 -> 5000, a key per second",
                "5000 -> 0, a key per second",
                "0 -> 1000, one key",
                "1000 -> 0, one key",
                "2000 -> 0, one key",
                "1500 -> 0, one key"
            })
    void eachWindowIsCommittedOnceWhenTheLatenessChangesAcrossARestore(String change)
            throws Exception {
        String[] parts = change.split("[ ,>-]+");
        long before = Long.parseLong(parts[0]);
        long after = Long.parseLong(parts[1]);
        boolean oneKey = change.endsWith("one key");
        // Raised: window 0 open at the gate (watermark 899). Lowered: fired (watermark 1499).
        long gateAfter = before == 0 ? 900 : 1_500;
        List<Long> times = List.of(0L, 100L, 500L, 900L, 1_500L, 1_600L, 2_500L, 8_000L);
        int gate = times.indexOf(gateAfter) + 1;
        Path out = dir.resolve("out");
        Path checkpoints = dir.resolve("chk");

        CHECKPOINTS_AFTER_GATE.set(0);
        AT_GATE.set(false);
        FAIL.set(true);
        assertThatThrownBy(() -> pipeline(times, gate, before, oneKey, checkpoints, out).run())
                .isInstanceOf(JobFailedException.class)
                .hasRootCauseMessage("injected failure after the checkpoint");

        FAIL.set(false);
        pipeline(times, gate, after, oneKey, checkpoints, out).run();

        assertThat(FileSink.readCommitted(out))
                .as("one result per window, window [0, 1000) with its four records")
                .containsExactlyInAnyOrder("0:4", "1000:2", "2000:1", "8000:1");
    }

    /**
     * A timestamp whose windows do not fit in a long fails the job with its cause named; before,
     * one near Long.MIN_VALUE was dropped without a word. One whose window fits, however close to
     * the end of the range, is counted in it.
     */
    @Test
    void aTimestampWhoseWindowsOverflowFailsTheJobWithItsCause() throws Exception {
        FAIL.set(false);
        CHECKPOINTS_AFTER_GATE.set(2);
        for (long t : new long[] {Long.MIN_VALUE + 5, Long.MIN_VALUE + 807, Long.MAX_VALUE - 5}) {
            Path out = dir.resolve("out-" + t);
            Pipeline pipeline = pipeline(List.of(t), 0, 0, true, dir.resolve("chk-" + t), out);
            assertThatThrownBy(pipeline::run)
                    .isInstanceOf(JobFailedException.class)
                    .rootCause()
                    .hasMessageContaining("timestamp " + t)
                    .hasMessageContaining("overflow");
        }
        // Long.MIN_VALUE is 192 past a multiple of 1000, Long.MAX_VALUE 807: the first whole
        // window starts at MIN + 808, the last ends at MAX - 807.
        Map<Long, Long> fitting =
                Map.of(
                        Long.MIN_VALUE + 808,
                        Long.MIN_VALUE + 808,
                        Long.MIN_VALUE + 1_500,
                        Long.MIN_VALUE + 808,
                        Long.MAX_VALUE - 1_500,
                        Long.MAX_VALUE - 1_807,
                        Long.MAX_VALUE - 808,
                        Long.MAX_VALUE - 1_807);
        for (Map.Entry<Long, Long> timeAndStart : fitting.entrySet()) {
            long t = timeAndStart.getKey();
            Path out = dir.resolve("out-" + t);
            pipeline(List.of(t), 0, 0, true, dir.resolve("chk-" + t), out).run();
            assertThat(FileSink.readCommitted(out)).containsExactly(timeAndStart.getValue() + ":1");
        }
    }

    /**
     * A session kept (fired) by a run with more lateness takes no record that is late under the new
     * lateness: the record goes to the side output, and the session is not emitted again.
     */
    @Test
    void aSessionKeptByTheOldLatenessTakesNoRecordLateUnderTheNew() throws Exception {
        List<Long> times = List.of(0L, 100L, 1_500L, 1_600L, 200L, 8_000L);
        Path out = dir.resolve("out");
        Path checkpoints = dir.resolve("chk");
        WindowAssigner sessions = WindowAssigner.session(Duration.ofMillis(300));
        CHECKPOINTS_AFTER_GATE.set(0);
        AT_GATE.set(false);
        FAIL.set(true);
        assertThatThrownBy(() -> pipeline(times, 3, 2_000, true, sessions, checkpoints, out).run())
                .isInstanceOf(JobFailedException.class);

        FAIL.set(false);
        pipeline(times, 3, 0, true, sessions, checkpoints, out).run();

        assertThat(FileSink.readCommitted(out))
                .containsExactlyInAnyOrder("0:2", "1500:2", "8000:1");
        assertThat(FileSink.readCommitted(late(out))).containsExactly("200");
    }

    static Path late(Path out) {
        return out.resolveSibling(out.getFileName() + "-late");
    }

    static Pipeline pipeline(
            List<Long> times, int gate, long lateness, boolean oneKey, Path checkpoints, Path out) {
        return pipeline(
                times,
                gate,
                lateness,
                oneKey,
                WindowAssigner.tumbling(Duration.ofSeconds(1)),
                checkpoints,
                out);
    }

    static Pipeline pipeline(
            List<Long> times,
            int gate,
            long lateness,
            boolean oneKey,
            WindowAssigner assigner,
            Path checkpoints,
            Path out) {
        OutputTag<Long> lateTag = OutputTag.of("late");
        Pipeline pipeline =
                Pipeline.create("lateness-changed")
                        .parallelism(1)
                        .checkpointing(
                                CheckpointConfig.exactlyOnce(Duration.ofMillis(20), checkpoints))
                        .restartStrategy(RestartStrategy.none())
                        .listener(
                                new JobListener() {
                                    @Override
                                    public void onCheckpointComplete(CheckpointStats stats) {
                                        if (AT_GATE.get()) {
                                            CHECKPOINTS_AFTER_GATE.incrementAndGet();
                                        }
                                    }
                                });
        DataStream<String> windows =
                pipeline.source(
                                "times",
                                new GatedSource(times, gate),
                                WatermarkStrategy.<Long>forGenerator(Punctuated::new)
                                        .withTimestampAssigner((t, previous) -> t))
                        .map(
                                t -> {
                                    if (FAIL.get() && CHECKPOINTS_AFTER_GATE.get() >= 2) {
                                        throw new IllegalStateException(
                                                "injected failure after the checkpoint");
                                    }
                                    return t;
                                })
                        // A key per second: no later window of the key has a timer that could drop
                        // window
                        // [0, 1000) by chance. One key: a later window's end can be an old cleanup
                        // time.
                        .keyBy(t -> oneKey ? 0L : Math.floorDiv(t, 1000L))
                        .window(assigner)
                        .allowedLateness(Duration.ofMillis(lateness))
                        .sideOutputLateData(lateTag)
                        .<Long, Long, String>aggregate(
                                "per-second",
                                new WindowsTest.Count<Long>(),
                                Codecs.LONG,
                                (key, context, counts, collector) ->
                                        collector.collect(
                                                context.window().start()
                                                        + ":"
                                                        + counts.iterator().next()));
        windows.sink("out", FileSink.to(out));
        windows.sideOutput(lateTag).map(t -> Long.toString(t)).sink("late", FileSink.to(late(out)));
        return pipeline;
    }

    /** A watermark with every record: its time minus one. */
    static final class Punctuated implements WatermarkGenerator<Long> {
        @Override
        public void onEvent(Long record, long timestamp, WatermarkOutput output) {
            output.emit(timestamp - 1);
        }

        @Override
        public void onPeriodicEmit(WatermarkOutput output) {}
    }

    /**
     * The given times in one replayable split; before the record at index {@code gate} it returns
     * nothing until two checkpoints completed there.
     */
    record GatedSource(List<Long> times, int gate) implements Source<Long> {
        @Override
        public String kind() {
            return "gated";
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
                int next;

                @Override
                public ReadStatus poll(Collector<Long> out, int maxRecords) {
                    for (int i = 0; i < maxRecords && next < times.size(); i++) {
                        if (next == gate && CHECKPOINTS_AFTER_GATE.get() < 2) {
                            AT_GATE.set(true);
                            return ReadStatus.NOTHING_AVAILABLE;
                        }
                        out.collect(times.get(next++));
                    }
                    return next < times.size()
                            ? ReadStatus.MORE_AVAILABLE
                            : ReadStatus.END_OF_INPUT;
                }

                @Override
                public long position() {
                    return next;
                }

                @Override
                public void seek(long position) {
                    next = (int) position;
                }
            };
        }
    }
}
