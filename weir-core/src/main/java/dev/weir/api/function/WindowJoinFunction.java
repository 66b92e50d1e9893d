package dev.weir.api.function;

import dev.weir.api.window.TimeWindow;
import java.io.Serializable;

/**
 * Joins a pair of records of the same key and window ({@code KeyedStream.windowJoin}): called for
 * each left and right record of a window of a key when the window fires.
 *
 * <p>Called on the task's thread of the join step, one call at a time; an exception fails the task.
 *
 * @param <K> key type
 * @param <L> left record type
 * @param <R> right record type
 * @param <O> result type
 */
@FunctionalInterface
public interface WindowJoinFunction<K, L, R, O> extends Serializable {
    /**
     * Emits the results of joining {@code left} with {@code right} into {@code out}.
     *
     * @param key the window's key
     * @param window the window that fired
     * @param left a left record of the window
     * @param right a right record of the window
     * @param out where to emit; valid only during this call
     * @throws Exception to fail the task; the restart strategy decides what follows
     */
    void join(K key, TimeWindow window, L left, R right, Collector<O> out) throws Exception;
}
