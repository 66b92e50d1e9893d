package dev.weir.internal.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.api.function.Collector;
import dev.weir.api.source.ReadStatus;
import dev.weir.api.source.Source;
import dev.weir.api.source.SourceContext;
import dev.weir.api.source.SourceReader;
import dev.weir.api.time.WatermarkStrategy;
import dev.weir.internal.operators.Output;
import dev.weir.internal.operators.ProcessingTimeService;
import dev.weir.internal.operators.RecordTime;
import dev.weir.source.ReplayableSourceConformance;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A source subtask held back by watermark alignment is not idle: while its reads are skipped its
 * splits' idleness clocks stand still, so its consumers never take it out of their minimum and let
 * their watermark pass records it has not read yet (found by a breaker: records of a split 3 s
 * behind its sibling came late after a pause longer than the idleness timeout). Driven on a clock
 * of our own: 10 ms periodic watermarks, 100 ms idleness.
 */
class AlignmentPauseIdlenessTest {
    private final long[] clock = {0};
    private final ProcessingTimeService timeService = new ProcessingTimeService(() -> clock[0]);
    private final List<Long> watermarks = new ArrayList<>();

    @ParameterizedTest(name = "paused: {0}")
    @ValueSource(booleans = {true, false})
    void aPausedSubtaskIsNotMarkedIdle(boolean paused) throws Exception {
        SourceDriver driver = driver();
        driver.poll(record -> {}, 10); // one record at time 5: the split is active
        for (int step = 0; step < 50; step++) { // 500 ms without a read
            if (paused) {
                driver.paused();
            }
            clock[0] += 10;
            timeService.fireDue();
        }
        if (paused) {
            assertThat(watermarks).doesNotContain(Output.IDLE);
        } else {
            // The control: the same 500 ms without reads, not paused, is idleness.
            assertThat(watermarks).contains(Output.IDLE);
        }
    }

    @Test
    void aSplitIdleBeforeThePauseStaysIdle() throws Exception {
        SourceDriver driver = driver();
        driver.poll(record -> {}, 10);
        for (int step = 0; step < 20; step++) {
            clock[0] += 10;
            timeService.fireDue();
        }
        assertThat(watermarks).endsWith(Output.IDLE);
        for (int step = 0; step < 20; step++) {
            driver.paused();
            clock[0] += 10;
            timeService.fireDue();
        }
        assertThat(watermarks).endsWith(Output.IDLE);
    }

    private SourceDriver driver() throws Exception {
        Output output =
                new Output() {
                    @Override
                    public void collect(Object record) {}

                    @Override
                    public void emitWatermark(long watermark) {
                        watermarks.add(watermark);
                    }
                };
        SourceDriver driver =
                new SourceDriver(
                        new OneRecord(),
                        List.of("only"),
                        ReplayableSourceConformance.CONTEXT,
                        new SourceDriver.SourceTime(
                                output,
                                "one",
                                WatermarkStrategy.<Object>forMonotonousTimestamps()
                                        .withTimestampAssigner((record, previous) -> 5L)
                                        .withIdleness(Duration.ofMillis(100)),
                                new RecordTime(),
                                timeService,
                                10));
        driver.open(Map.of());
        return driver;
    }

    /** One split that has one record, then nothing for now (an unbounded input). */
    private static final class OneRecord implements Source<Object> {
        private static final long serialVersionUID = 1L;

        @Override
        public String kind() {
            return "one";
        }

        @Override
        public boolean isReplayable() {
            return true;
        }

        @Override
        public List<String> splits(int parallelism) {
            return List.of("only");
        }

        @Override
        public SourceReader<Object> openReader(String split, SourceContext context) {
            return new SourceReader<>() {
                private long next;

                @Override
                public ReadStatus poll(Collector<Object> out, int maxRecords) {
                    if (next == 0) {
                        out.collect("r");
                        next = 1;
                    }
                    return ReadStatus.NOTHING_AVAILABLE;
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
