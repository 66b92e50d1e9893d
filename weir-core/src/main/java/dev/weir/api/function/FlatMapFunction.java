package dev.weir.api.function;

import java.io.Serializable;

/**
 * Transforms one record into zero or more records.
 *
 * <p>Emit with {@link Collector#collect}. Everything emitted for one input record is buffered by
 * the task before backpressure applies, so keep the fan-out of a single record modest (thousands,
 * not millions).
 *
 * <p>Called on the task's thread, one record at a time; an exception fails the task. A function
 * that may block its thread for long (a call to a remote service, a throttle) should be marked with
 * {@code DataStream.blocking()} on the stream its step returns, so its subtasks run on threads of
 * their own instead of holding up the steps that share a worker.
 *
 * @param <T> input type
 * @param <R> output type
 */
@FunctionalInterface
public interface FlatMapFunction<T, R> extends Serializable {
    /**
     * Emits the records that replace {@code value} into {@code out}.
     *
     * @param value the input record
     * @param out where to emit; valid only during this call
     * @throws Exception to fail the task; the restart strategy decides what follows
     */
    void flatMap(T value, Collector<R> out) throws Exception;
}
