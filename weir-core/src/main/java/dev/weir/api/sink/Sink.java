package dev.weir.api.sink;

import dev.weir.api.Guarantee;
import java.io.Serializable;

/**
 * Where a pipeline's results leave Weir.
 *
 * <p>Each sink declares the guarantee it gives when replays happen: a plain sink that simply writes
 * (console, a callback) repeats writes on replay and is {@link Guarantee#AT_LEAST_ONCE}. See {@link
 * Sinks} for built-ins.
 *
 * @param <T> record type
 */
public interface Sink<T> extends Serializable {
    /** A short name of the kind of sink, such as {@code "console"}. */
    String kind();

    /** The guarantee this sink gives when the engine replays records after a failure. */
    Guarantee guarantee();

    /** Why the sink is not exactly-once and what to use instead; empty for exactly-once sinks. */
    default String limitation() {
        return guarantee() == Guarantee.EXACTLY_ONCE
                ? ""
                : "not transactional or idempotent; use FileSink or a two-phase-commit sink";
    }

    /** Creates the writer of one sink subtask. */
    SinkWriter<T> createWriter(SinkContext context) throws Exception;

    /**
     * True if the sink's writer may block its thread for long (a remote commit, a network call):
     * its subtasks then run on threads of their own, so they never hold up other steps nor a
     * checkpoint barrier behind them (the idea of Hazelcast Jet's non-cooperative processors).
     * Sinks that only touch local files need not say so.
     */
    default boolean isBlocking() {
        return false;
    }
}
