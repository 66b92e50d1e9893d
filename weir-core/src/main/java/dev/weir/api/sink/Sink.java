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
 * <p>The sink is serialisable and is built once by the user; the runtime calls {@link
 * #createWriter} once per sink subtask, on that subtask's thread, when the job (or a restart
 * attempt) starts. Records then go to the {@link SinkWriter}.
 *
 * @param <T> record type
 */
public interface Sink<T> extends Serializable {
    /**
     * {@return a short name of the kind of sink, such as {@code "console"}} Used in logs and error
     * messages.
     */
    String kind();

    /**
     * The guarantee this sink gives when the engine replays records after a failure.
     *
     * @return the guarantee; the analyzer warns when it is weaker than the job's
     */
    Guarantee guarantee();

    /**
     * Why the sink is not exactly-once and what to use instead; empty for exactly-once sinks.
     *
     * @return one sentence for the analyzer's warning, or an empty string
     */
    default String limitation() {
        return guarantee() == Guarantee.EXACTLY_ONCE
                ? ""
                : "not transactional or idempotent; use FileSink or a two-phase-commit sink";
    }

    /**
     * Creates the writer of one sink subtask.
     *
     * @param context the job, sink and subtask the writer serves
     * @return a new writer; the runtime closes it
     * @throws Exception if the writer cannot be opened; the task fails and the job restarts or
     *     stops as its restart policy says
     */
    SinkWriter<T> createWriter(SinkContext context) throws Exception;

    /**
     * True if the sink's writer may block its thread for long (a remote commit, a network call):
     * its subtasks then run on threads of their own, so they never hold up other steps nor a
     * checkpoint barrier behind them (the idea of Hazelcast Jet's non-cooperative processors).
     * Sinks that only touch local files need not say so.
     *
     * @return true to run each subtask on a dedicated thread; false by default
     */
    default boolean isBlocking() {
        return false;
    }
}
