package dev.weir.api.function;

import dev.weir.api.state.ValueState;
import java.io.Serializable;

/**
 * The short form of a keyed process function with a single {@link ValueState}: {@code (key, value,
 * state, out) -> ...}.
 *
 * <p>Called on the task's thread of the step, once per record, as {@link
 * KeyedProcessFunction#process} is; an exception fails the task.
 *
 * @param <K> key type
 * @param <T> input type
 * @param <S> state type
 * @param <R> output type
 */
@FunctionalInterface
public interface ValueProcessFunction<K, T, S, R> extends Serializable {
    /**
     * Processes {@code value}; {@code state} is scoped to {@code key}.
     *
     * @param key the key of {@code value}
     * @param value the record
     * @param state the key's state; null value until first updated
     * @param out where to emit; valid only during this call
     * @throws Exception to fail the task; the restart strategy decides what follows
     */
    void process(K key, T value, ValueState<S> state, Collector<R> out) throws Exception;
}
