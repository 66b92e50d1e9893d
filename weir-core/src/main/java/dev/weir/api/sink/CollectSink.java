package dev.weir.api.sink;

import dev.weir.api.Guarantee;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Collects every record in memory, for tests and examples.
 *
 * <p>Records from all subtasks land in one thread-safe queue; {@link #results()} copies it. Replays
 * after a failure add again, so this sink is {@link Guarantee#AT_LEAST_ONCE}.
 *
 * @param <T> record type
 */
public final class CollectSink<T> implements Sink<T> {
    /** The records of every writer, in arrival order. */
    private final ConcurrentLinkedQueue<T> records = new ConcurrentLinkedQueue<>();

    @Override
    public String kind() {
        return "collect";
    }

    @Override
    public Guarantee guarantee() {
        return Guarantee.AT_LEAST_ONCE;
    }

    @Override
    public SinkWriter<T> createWriter(SinkContext context) {
        return records::add;
    }

    /**
     * A copy of the records collected so far, in arrival order.
     *
     * @return a new, modifiable list; records of different subtasks are interleaved
     */
    public List<T> results() {
        return new ArrayList<>(records);
    }
}
