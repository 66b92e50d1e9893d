package dev.weir.verify;

import dev.weir.api.Guarantee;
import dev.weir.api.function.Collector;
import dev.weir.api.source.ReadStatus;
import dev.weir.api.source.Source;
import dev.weir.api.source.SourceContext;
import dev.weir.api.source.SourceReader;
import java.io.PrintStream;
import java.util.List;

/**
 * The verify job's source: a built-in source read at most {@code recordsPerSecondPerSplit} per
 * split (so kills land mid-run, and a split with fewer records ends sooner), which tells the
 * harness when a split ends by printing {@code ENDED <split> <records it emitted in this run>} on
 * standard output. Everything else — splits, positions, reader states, seeks — is the wrapped
 * source's own, so its restore is what the run proves.
 *
 * @param <T> record type
 */
final class PacedSource<T> implements Source<T> {
    private static final long serialVersionUID = 1L;

    /** The line prefix the harness reads. */
    static final String ENDED = "ENDED ";

    private final Source<T> inner;
    private final double recordsPerSecondPerSplit;

    /**
     * @param recordsPerSecondPerSplit the most records a split emits per second; 0 = unlimited
     */
    PacedSource(Source<T> inner, double recordsPerSecondPerSplit) {
        this.inner = inner;
        this.recordsPerSecondPerSplit = recordsPerSecondPerSplit;
    }

    @Override
    public String kind() {
        return inner.kind();
    }

    @Override
    public boolean isReplayable() {
        return inner.isReplayable();
    }

    @Override
    public Guarantee guarantee() {
        return inner.guarantee();
    }

    @Override
    public List<String> splits(int parallelism) {
        return inner.splits(parallelism);
    }

    @Override
    public SourceReader<T> openReader(String split, SourceContext context) throws Exception {
        return new Reader<>(
                inner.openReader(split, context),
                split,
                recordsPerSecondPerSplit,
                context,
                System.out);
    }

    /** Paces one split's reader; single-threaded, like the reader it wraps. */
    private static final class Reader<T> implements SourceReader<T> {
        private final SourceReader<T> inner;
        private final String split;
        private final double ratePerSecond;
        private final SourceContext context;
        private final PrintStream out;
        private long emitted;
        private long startNanos = -1;
        private long startEmitted;
        private boolean endReported;

        Reader(
                SourceReader<T> inner,
                String split,
                double ratePerSecond,
                SourceContext context,
                PrintStream out) {
            this.inner = inner;
            this.split = split;
            this.ratePerSecond = ratePerSecond;
            this.context = context;
            this.out = out;
        }

        @Override
        public ReadStatus poll(Collector<T> collector, int maxRecords) throws Exception {
            if (SplitGate.holds()) {
                return ReadStatus.NOTHING_AVAILABLE; // another split ended: see SplitGate
            }
            int budget = maxRecords;
            if (ratePerSecond > 0) {
                budget = (int) Math.min(budget, allowedNow());
                if (budget == 0) {
                    return ReadStatus.NOTHING_AVAILABLE;
                }
            }
            int[] count = {0};
            ReadStatus status =
                    inner.poll(
                            record -> {
                                count[0]++;
                                collector.collect(record);
                            },
                            budget);
            emitted += count[0];
            if (status == ReadStatus.END_OF_INPUT && !endReported) {
                endReported = true;
                SplitGate.ended(emitted);
                out.println(ENDED + split + " " + emitted);
                out.flush();
            }
            return status;
        }

        /** Records the rate allows now: those due since the first poll, minus those emitted. */
        private long allowedNow() {
            long now = context.nanoTime();
            if (startNanos < 0) {
                startNanos = now;
                startEmitted = emitted;
            }
            double seconds = (now - startNanos) / 1e9;
            long due = (long) (seconds * ratePerSecond) + 1;
            return Math.max(0, due - (emitted - startEmitted));
        }

        @Override
        public long position() {
            return inner.position();
        }

        @Override
        public void seek(long position) throws Exception {
            inner.seek(position);
            startNanos = -1;
        }

        @Override
        public byte[] snapshotState() throws Exception {
            return inner.snapshotState();
        }

        @Override
        public void restoreState(byte[] state) throws Exception {
            inner.restoreState(state);
        }

        @Override
        public void close() throws Exception {
            inner.close();
        }
    }
}
