package dev.weir.metrics;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The meters {@link WeirMetrics#bind} registered for one job; {@link #close} removes them from the
 * registry (a finished job's figures stay readable until then).
 *
 * <p>Thread-safe.
 */
public final class MeterBinding implements AutoCloseable {
    private final MeterRegistry registry;
    private final List<Meter> meters;
    private final AtomicBoolean closed = new AtomicBoolean();

    MeterBinding(MeterRegistry registry, List<Meter> meters) {
        this.registry = registry;
        this.meters = List.copyOf(meters);
    }

    /**
     * The registered meters, in registration order.
     *
     * @return the meters
     */
    public List<Meter> meters() {
        return meters;
    }

    /**
     * Removes the meters from the registry. Idempotent: a second call removes nothing, not even the
     * meters of a job of the same name bound since.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        for (Meter meter : meters) {
            registry.remove(meter);
        }
    }
}
