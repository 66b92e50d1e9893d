package dev.weir.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.api.WindowTimersTest.CountAll;
import dev.weir.api.WindowTimersTest.Harness;
import dev.weir.api.function.AggregateFunction;
import dev.weir.api.window.WindowAssigner;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

/**
 * Sliding windows kept as panes (an incremental function with a merge, event time) give what
 * keeping each window does (the same function without a merge), record for record: out of order,
 * late records with and without allowed lateness, a checkpoint restored midway, and a checkpoint
 * taken before panes (each window kept) restored into panes.
 */
class PanedWindowsProperties {
    private static final long[][] SHAPES = {{10, 2}, {9, 3}, {20, 5}, {6, 2}, {12, 4}};
    private static final long[] LATENESS = {0, 3, 11};

    /** {@link CountAll} without a merge: its windows are each kept whole. */
    static final class CountWithoutMerge implements AggregateFunction<Object, Object, Object> {
        private static final long serialVersionUID = 1L;
        private final CountAll count = new CountAll();

        @Override
        public Object createAccumulator() {
            return count.createAccumulator();
        }

        @Override
        public Object add(Object value, Object accumulator) {
            return count.add(value, accumulator);
        }

        @Override
        public Object getResult(Object accumulator) {
            return count.getResult(accumulator);
        }
    }

    @Property(tries = 100)
    void panesFireWhatWholeWindowsFire(
            @ForAll @LongRange(min = 0, max = Long.MAX_VALUE / 2) long seed,
            @ForAll @IntRange(min = 0, max = 4) int shape,
            @ForAll @IntRange(min = 0, max = 2) int latenessIndex,
            @ForAll @IntRange(min = -1, max = 599) int restoreAt,
            @ForAll boolean panesOnlyAfterTheRestore)
            throws Exception {
        WindowAssigner sliding =
                WindowAssigner.sliding(
                        Duration.ofMillis(SHAPES[shape][0]), Duration.ofMillis(SHAPES[shape][1]));
        long lateness = LATENESS[latenessIndex];
        Harness whole = new Harness(sliding, lateness, new CountWithoutMerge());
        boolean panedFromStart = !(panesOnlyAfterTheRestore && restoreAt >= 0);
        Harness paned =
                panedFromStart
                        ? new Harness(sliding, lateness, new CountAll())
                        : new Harness(sliding, lateness, new CountWithoutMerge());
        List<String> wholeOut = new ArrayList<>();
        List<String> panedOut = new ArrayList<>();
        Random random = new Random(seed);
        long base = random.nextInt(40) - 20; // windows before the epoch too
        long watermark = Long.MIN_VALUE;
        for (int step = 0; step < 600; step++) {
            if (step == restoreAt) {
                // What was emitted before the restore stays emitted; the restored harnesses go on.
                wholeOut.addAll(whole.out);
                panedOut.addAll(paned.out);
                whole =
                        Harness.restoredFrom(
                                whole.state, sliding, lateness, new CountWithoutMerge());
                paned = Harness.restoredFrom(paned.state, sliding, lateness, new CountAll());
                if (watermark != Long.MIN_VALUE) {
                    // The operator's watermark comes back with its checkpoint (no timer is due).
                    whole.watermark(watermark);
                    paned.watermark(watermark);
                }
            }
            if (random.nextInt(25) == 0) {
                long next = base - random.nextInt(12);
                if (next > watermark) {
                    watermark = next;
                    whole.watermark(watermark);
                    paned.watermark(watermark);
                }
            } else {
                String key = "k" + random.nextInt(4);
                long time = base + random.nextInt(16) - 4; // some behind the watermark: late
                whole.add(key, time);
                paned.add(key, time);
                if (random.nextInt(3) == 0) {
                    base++;
                }
            }
        }
        whole.watermark(Long.MAX_VALUE);
        paned.watermark(Long.MAX_VALUE);
        wholeOut.addAll(whole.out);
        panedOut.addAll(paned.out);
        assertThat(sorted(panedOut)).isEqualTo(sorted(wholeOut));
        assertThat(paned.pending()).isZero();
        assertThat(paned.state.snapshot().keyCount()).as("every pane dropped").isZero();
    }

    private static List<String> sorted(List<String> out) {
        List<String> copy = new ArrayList<>(out);
        copy.sort(null);
        return copy;
    }
}
