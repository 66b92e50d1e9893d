package dev.weir.api.sink;

import dev.weir.api.Guarantee;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Discards records and counts them, for benchmarks.
 *
 * <p>Each writer counts locally and adds its count to the shared total when it finishes or closes,
 * so counting costs one increment per record.
 *
 * @param <T> record type
 */
public final class CountingSink<T> implements Sink<T> {
    /** The sum of the counts the writers published. */
    private final AtomicLong total = new AtomicLong();

    @Override
    public String kind() {
        return "counting";
    }

    @Override
    public Guarantee guarantee() {
        return Guarantee.AT_LEAST_ONCE;
    }

    @Override
    public SinkWriter<T> createWriter(SinkContext context) {
        return new SinkWriter<>() {
            private long count;

            @Override
            public void write(T record) {
                count++;
            }

            @Override
            public void finish() {
                publish();
            }

            @Override
            public void close() {
                publish();
            }

            private void publish() {
                total.addAndGet(count);
                count = 0;
            }
        };
    }

    /**
     * Records counted by writers that have finished or closed.
     *
     * @return the total so far; it does not include writers still running
     */
    public long count() {
        return total.get();
    }
}
