package dev.weir.api.function;

import java.io.Serializable;

/**
 * Combines two values of the same key into one.
 *
 * @param <T> value type
 */
@FunctionalInterface
public interface ReduceFunction<T> extends Serializable {
    /** Returns the combination of the accumulated value and the new one. */
    T reduce(T accumulated, T value) throws Exception;
}
