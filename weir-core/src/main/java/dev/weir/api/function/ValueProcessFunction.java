package dev.weir.api.function;

import dev.weir.api.state.ValueState;
import java.io.Serializable;

/**
 * The short form of a keyed process function with a single {@link ValueState}: {@code (key, value,
 * state, out) -> ...}.
 *
 * @param <K> key type
 * @param <T> input type
 * @param <S> state type
 * @param <R> output type
 */
@FunctionalInterface
public interface ValueProcessFunction<K, T, S, R> extends Serializable {
    /** Processes {@code value}; {@code state} is scoped to {@code key}. */
    void process(K key, T value, ValueState<S> state, Collector<R> out) throws Exception;
}
