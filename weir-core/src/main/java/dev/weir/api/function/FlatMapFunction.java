package dev.weir.api.function;

import java.io.Serializable;

/**
 * Transforms one record into zero or more records.
 *
 * <p>Emit with {@link Collector#collect}. Everything emitted for one input record is buffered by
 * the task before backpressure applies, so keep the fan-out of a single record modest (thousands,
 * not millions).
 *
 * @param <T> input type
 * @param <R> output type
 */
@FunctionalInterface
public interface FlatMapFunction<T, R> extends Serializable {
    /** Emits the records that replace {@code value} into {@code out}. */
    void flatMap(T value, Collector<R> out) throws Exception;
}
