package dev.weir.api.function;

import java.io.Serializable;

/**
 * Transforms one record into exactly one record.
 *
 * <p>Called on the task's thread, one record at a time. An exception fails the task; the job then
 * restarts or fails according to its restart strategy.
 *
 * <p>A function that may block its thread for long (a call to a remote service, a throttle) should
 * be marked with {@code DataStream.blocking()} on the stream its step returns, so its subtasks run
 * on threads of their own instead of holding up the steps that share a worker.
 *
 * @param <T> input type
 * @param <R> output type
 */
@FunctionalInterface
public interface MapFunction<T, R> extends Serializable {
    /**
     * Returns the record that replaces {@code value}; must not be null.
     *
     * @param value the input record
     * @return the output record; not null
     * @throws Exception to fail the task; the restart strategy decides what follows
     */
    R map(T value) throws Exception;
}
