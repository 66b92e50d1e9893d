package dev.weir.testing;

import dev.weir.api.Guarantee;
import dev.weir.api.sink.Sink;
import dev.weir.api.sink.SinkContext;
import dev.weir.api.sink.SinkWriter;
import java.util.concurrent.atomic.AtomicLong;

/** Discards records but counts them as they arrive, so a test can wait for progress. */
public final class LiveCountSink<T> implements Sink<T> {
    private final AtomicLong count = new AtomicLong();

    @Override
    public String kind() {
        return "live-count";
    }

    @Override
    public Guarantee guarantee() {
        return Guarantee.AT_LEAST_ONCE;
    }

    @Override
    public SinkWriter<T> createWriter(SinkContext context) {
        return record -> count.incrementAndGet();
    }

    public long count() {
        return count.get();
    }

    /** Spins until at least {@code target} records arrived. */
    public void awaitAtLeast(long target) {
        while (count.get() < target) {
            Thread.onSpinWait();
        }
    }
}
