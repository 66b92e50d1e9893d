package dev.weir.api.function;

import java.io.Serializable;

/**
 * Combines two values of the same key into one.
 *
 * <p>Called on the task's thread of the step, once per record after the key's first; an exception
 * fails the task. Return a new or immutable value: a checkpoint may still hold the accumulated one.
 *
 * @param <T> value type
 */
@FunctionalInterface
public interface ReduceFunction<T> extends Serializable {
    /**
     * Returns the combination of the accumulated value and the new one.
     *
     * @param accumulated the combination so far; do not change it
     * @param value the new record
     * @return the new combination; a new or immutable object, since a checkpoint may still hold the
     *     old one
     * @throws Exception to fail the task; the restart strategy decides what follows
     */
    T reduce(T accumulated, T value) throws Exception;
}
