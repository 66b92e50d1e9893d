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
    /**
     * The watermark value that marks an output idle ({@code WatermarkStrategy.withIdleness}): it
     * has no records to send for now, so its consumers leave its channel out of their minimum until
     * a real watermark arrives on it again. Never a timestamp: {@code Long.MIN_VALUE + 1}.
     */
    long IDLE = Long.MIN_VALUE + 1;

    /** Passes on that event time has reached {@code watermark} (or {@link #IDLE}). */
    default void emitWatermark(long watermark) {}

    /** An output that drops everything (a sink's). */
    Output NONE = record -> {};
}
