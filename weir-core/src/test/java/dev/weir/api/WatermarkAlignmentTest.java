package dev.weir.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.api.checkpoint.CheckpointConfig;
import dev.weir.api.codec.Codecs;
import dev.weir.api.function.Collector;
import dev.weir.api.metrics.JobMetrics;
import dev.weir.api.sink.CountingSink;
import dev.weir.api.sink.Sinks;
import dev.weir.api.source.ReadStatus;
import dev.weir.api.source.Source;
import dev.weir.api.source.SourceContext;
import dev.weir.api.source.SourceReader;
import dev.weir.api.time.WatermarkGenerator;
import dev.weir.api.time.WatermarkStrategy;
import java.io.Serializable;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link Pipeline#watermarkAlignment}: a source subtask does not run ahead of its slowest sibling
 * by more than the drift, measured in the readers themselves: split 0 reads up to 1,000 records a
 * poll, split 1 one, each record one millisecond of event time later than the one before.
 */
@Timeout(120)
class WatermarkAlignmentTest {
    private static final int RECORDS = 60_000;

    /** Where each split's next record is (its timestamp), and the largest lead split 0 had. */
    static final AtomicLongArray NEXT = new AtomicLongArray(2);

    static final AtomicLong LEAD = new AtomicLong();

    /**
     * When set, split 1 reads nothing until split 0 has read half its records: without alignment
     * the lead is then certain, not left to how the two subtasks happen to be scheduled (on a
     * loaded machine the fast one can be descheduled long enough to stay close).
     */
    static volatile boolean holdSlowSplit;

    @TempDir Path dir;

    /** Each source subtask's time paused for alignment, from the job's metrics. */
    private final long[] pausedNanos = new long[2];

    @Test
    void aFastSubtaskWaitsForItsSlowSibling() throws Exception {
        long lead = run(Duration.ofSeconds(5));
        assertThat(pausedNanos[0])
                .as("the fast subtask's time paused, in its metrics")
                .isPositive();
        assertThat(pausedNanos[1]).as("the slow one never waits").isZero();
        // 5 s of drift, plus one poll of the fast split (1,000 ms), plus the slow split's last
        // record that its published watermark does not show yet.
        assertThat(lead).isLessThanOrEqualTo(5_000 + 1_000 + 2);
    }

    @Test
    void withoutAlignmentTheFastSubtaskRunsAhead() throws Exception {
        // The same job with alignment off: the fast split reads 1,000 records to the slow one's 1,
        // so it is far ahead (this is what the first test would see if alignment did nothing). The
        // slow split waits for the fast one to be half-way, so the lead does not depend on timing.
        holdSlowSplit = true;
        long lead;
        try {
            lead = run(Duration.ZERO);
        } finally {
            holdSlowSplit = false;
        }
        assertThat(pausedNanos).containsExactly(0, 0);
        assertThat(lead).isGreaterThan(12_000);
    }

    @Test
    void aDriftIsRoundedUpToWholeMillisecondsAndAHugeOneSaturates() {
        assertThat(drift(Duration.ofNanos(1))).as("below a millisecond is not off").isEqualTo(1);
        assertThat(drift(Duration.ofNanos(1_000_001))).isEqualTo(2);
        assertThat(drift(Duration.ofMillis(7))).isEqualTo(7);
        assertThat(drift(Duration.ZERO)).isZero();
        assertThat(drift(Duration.ofSeconds(Long.MAX_VALUE))).isEqualTo(Long.MAX_VALUE);
        assertThat(drift(null)).isEqualTo(Pipeline.DEFAULT_WATERMARK_ALIGNMENT.toMillis());
        assertThatThrownBy(() -> Pipeline.create("x").watermarkAlignment(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Duration.ZERO turns it off");
    }

    private static long drift(Duration drift) {
        Pipeline pipeline = Pipeline.create("drift");
        if (drift != null) {
            pipeline.watermarkAlignment(drift);
        }
        pipeline.source("ticks", new Ticks()).sink("out", Sinks.counting());
        return pipeline.plan().settings().watermarkAlignmentMillis();
    }

    private long run(Duration drift) throws Exception {
        NEXT.set(0, 0);
        NEXT.set(1, 0);
        LEAD.set(0);
        CountingSink<Tick> out = Sinks.counting();
        Pipeline pipeline =
                Pipeline.create("alignment")
                        .parallelism(2)
                        .watermarkAlignment(drift)
                        .checkpointing(
                                CheckpointConfig.exactlyOnce(
                                        Duration.ofMillis(20), dir.resolve(drift.toString())));
        pipeline.source("ticks", new Ticks())
                .assignTimestampsAndWatermarks(
                        WatermarkStrategy.<Tick>forGenerator(EveryRecord::new)
                                .withTimestampAssigner((tick, previous) -> tick.time()))
                .keyBy(Tick::split)
                .reduce("latest", (a, b) -> b, Codecs.record(Tick.class))
                .sink("out", out);
        // A barrier reaches a paused subtask too: were it held back, the job would never end.
        JobHandle job = pipeline.start();
        job.await();
        for (JobMetrics.SourceMetrics source : job.metrics().sources()) {
            pausedNanos[source.subtask()] = source.alignmentPausedNanos();
        }
        assertThat(out.count())
                .as("pausing reads loses and repeats nothing")
                .isEqualTo(2L * RECORDS);
        return LEAD.get();
    }

    /** One record of split {@code split} at event time {@code time}. */
    record Tick(int split, long time) implements Serializable {}

    /** A watermark at every record's own time (so the published watermark is exact). */
    static final class EveryRecord implements WatermarkGenerator<Tick> {
        @Override
        public void onEvent(Tick record, long timestamp, WatermarkOutput output) {
            output.emit(timestamp);
        }

        @Override
        public void onPeriodicEmit(WatermarkOutput output) {}
    }

    /** Two splits of {@link #RECORDS} ticks; split 0 fast, split 1 one tick per poll. */
    static final class Ticks implements Source<Tick> {
        private static final long serialVersionUID = 1L;

        @Override
        public String kind() {
            return "ticks";
        }

        @Override
        public boolean isReplayable() {
            return true;
        }

        @Override
        public List<String> splits(int parallelism) {
            return List.of("0", "1");
        }

        @Override
        public SourceReader<Tick> openReader(String split, SourceContext context) {
            int id = Integer.parseInt(split);
            return new SourceReader<>() {
                private long next;

                @Override
                public ReadStatus poll(Collector<Tick> out, int maxRecords) {
                    // Split 1 starts once split 0 polled twice, so split 0's watermark is
                    // published (at the start of its next poll) before split 1 reads: otherwise a
                    // fast subtask slow to start (a loaded machine) let the slow one read 6,000
                    // one-record polls, lead by more than the drift and wait (seen: 2.6 ms).
                    if (id == 1 && NEXT.get(0) < (holdSlowSplit ? RECORDS / 2 : 2_000)) {
                        return ReadStatus.NOTHING_AVAILABLE;
                    }
                    int limit = id == 0 ? Math.min(maxRecords, 1_000) : 1;
                    if (id == 0 && NEXT.get(1) < RECORDS) {
                        LEAD.accumulateAndGet(next - NEXT.get(1), Math::max);
                    }
                    for (int i = 0; i < limit && next < RECORDS; i++) {
                        out.collect(new Tick(id, next++));
                    }
                    NEXT.set(id, next);
                    return next >= RECORDS ? ReadStatus.END_OF_INPUT : ReadStatus.MORE_AVAILABLE;
                }

                @Override
                public long position() {
                    return next;
                }

                @Override
                public void seek(long position) {
                    next = position;
                    NEXT.set(id, position);
                }

                @Override
                public void close() {}
            };
        }
    }
}
