package dev.weir.internal.operators;

import dev.weir.api.function.Collector;

/**
 * Where an operator emits records: the next chained operator, a network writer, or several.
 *
 * <p>Called on the task's thread. Never refuses: a task buffers what one input batch produces and
 * stops taking input while its writers hold unsent batches (see {@link RecordWriter}). Watermarks
 * travel the same way as records, in order with them.
 */
public interface Output extends Collector<Object> {
    /** Passes on that event time has reached {@code watermark}. */
    default void emitWatermark(long watermark) {}

    /** An output that drops everything (a sink's). */
    Output NONE = record -> {};
}
