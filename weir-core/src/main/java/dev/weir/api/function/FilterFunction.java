package dev.weir.api.function;

import java.io.Serializable;

/**
 * Decides whether a record continues downstream.
 *
 * <p>Called on the task's thread, one record at a time; an exception fails the task. A function
 * that may block its thread for long (a call to a remote service, a throttle) should be marked with
 * {@code DataStream.blocking()} on the stream its step returns, so its subtasks run on threads of
 * their own instead of holding up the steps that share a worker.
 *
 * @param <T> record type
 */
@FunctionalInterface
public interface FilterFunction<T> extends Serializable {
    /**
     * Returns true to keep {@code value}.
     *
     * @param value the record to decide on
     * @return true to keep the record, false to drop it
     * @throws Exception to fail the task; the restart strategy decides what follows
     */
    boolean test(T value) throws Exception;
}
