package dev.weir.api.function;

import dev.weir.api.window.TimeWindow;
import java.io.Serializable;

/**
 * Joins a pair of records of the same key and window ({@code KeyedStream.windowJoin}): called for
 * each left and right record of a window of a key when the window fires.
 *
 * @param <K> key type
 * @param <L> left record type
 * @param <R> right record type
 * @param <O> result type
 */
@FunctionalInterface
public interface WindowJoinFunction<K, L, R, O> extends Serializable {
    /** Emits the results of joining {@code left} with {@code right} into {@code out}. */
    void join(K key, TimeWindow window, L left, R right, Collector<O> out) throws Exception;
}
