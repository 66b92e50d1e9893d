package dev.weir.api.function;

import java.io.Serializable;

/**
 * Transforms one record into exactly one record.
 *
 * <p>Called on the task's thread, one record at a time. An exception fails the task; the job then
 * restarts or fails according to its restart strategy.
 *
 * @param <T> input type
 * @param <R> output type
 */
@FunctionalInterface
public interface MapFunction<T, R> extends Serializable {
    /** Returns the record that replaces {@code value}; must not be null. */
    R map(T value) throws Exception;
}
