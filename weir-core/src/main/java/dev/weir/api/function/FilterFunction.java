package dev.weir.api.function;

import java.io.Serializable;

/**
 * Decides whether a record continues downstream.
 *
 * @param <T> record type
 */
@FunctionalInterface
public interface FilterFunction<T> extends Serializable {
    /** Returns true to keep {@code value}. */
    boolean test(T value) throws Exception;
}
