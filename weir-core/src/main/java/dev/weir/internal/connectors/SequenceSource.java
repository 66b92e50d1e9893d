package dev.weir.internal.connectors;

import dev.weir.api.function.Collector;
import dev.weir.api.source.ReadStatus;
import dev.weir.api.source.Source;
import dev.weir.api.source.SourceContext;
import dev.weir.api.source.SourceReader;
import java.util.ArrayList;
import java.util.List;

/**
 * The numbers {@code from..to}, striped over splits: split {@code s} of {@code n} yields {@code
 * from + s, from + s + n, ...}. Replayable: the offset is the count of numbers emitted from the
 * split. An optional rate limit spreads emission evenly using the context's clock.
 */
public final class SequenceSource implements Source<Long> {
    private final long from;
    private final long to;
    private final int splitCount;
    private final long recordsPerSecond;

    /**
     * @param splitCount fixed number of splits, or 0 for one split per source subtask
     * @param recordsPerSecond total rate over all splits, or 0 for unlimited
     */
    public SequenceSource(long from, long to, int splitCount, long recordsPerSecond) {
        if (to < from - 1) {
            throw new IllegalArgumentException("sequence " + from + ".." + to + " is reversed");
        }
        if (splitCount < 0 || recordsPerSecond < 0) {
            throw new IllegalArgumentException("splits and rate must be >= 0");
        }
        this.from = from;
        this.to = to;
        this.splitCount = splitCount;
        this.recordsPerSecond = recordsPerSecond;
    }

    @Override
    public String kind() {
        return "sequence";
    }

    @Override
    public boolean isReplayable() {
        return true;
    }

    @Override
    public List<String> splits(int parallelism) {
        int n = splitCount > 0 ? splitCount : parallelism;
        List<String> splits = new ArrayList<>(n);
        for (int s = 0; s < n; s++) {
            splits.add("seq-" + s + "-of-" + n);
        }
        return splits;
    }

    @Override
    public SourceReader<Long> openReader(String split, SourceContext context) {
        String[] parts = split.split("-");
        int index = Integer.parseInt(parts[1]);
        int count = Integer.parseInt(parts[3]);
        double perSplitRate = recordsPerSecond == 0 ? 0 : (double) recordsPerSecond / count;
        return new Reader(from + index, count, perSplitRate, context);
    }

    private final class Reader implements SourceReader<Long> {
        private final long first;
        private final int stride;
        private final double ratePerSecond;
        private final SourceContext context;
        private long emitted;
        private long startNanos = -1;
        private long startEmitted;

        Reader(long first, int stride, double ratePerSecond, SourceContext context) {
            this.first = first;
            this.stride = stride;
            this.ratePerSecond = ratePerSecond;
            this.context = context;
        }

        @Override
        public ReadStatus poll(Collector<Long> out, int maxRecords) {
            long next = first + emitted * stride;
            if (next > to) {
                return ReadStatus.END_OF_INPUT;
            }
            int budget = maxRecords;
            if (ratePerSecond > 0) {
                budget = (int) Math.min(budget, allowedNow());
                if (budget == 0) {
                    return ReadStatus.NOTHING_AVAILABLE;
                }
            }
            long last = to;
            for (int i = 0; i < budget && next <= last; i++) {
                out.collect(next);
                next += stride;
                emitted++;
            }
            return next > to ? ReadStatus.END_OF_INPUT : ReadStatus.MORE_AVAILABLE;
        }

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
            return emitted;
        }

        @Override
        public void seek(long position) {
            emitted = position;
            startNanos = -1;
        }

        /** The numbers of this split not emitted yet: the sequence's end is known up front. */
        @Override
        public long lag() {
            long next = first + emitted * stride;
            return next > to ? 0 : (to - next) / stride + 1;
        }
    }
}
