package dev.weir.api.function;

import dev.weir.api.state.KeyedStateStore;
import java.io.Serializable;

/**
 * Processes the records of a keyed stream with access to per-key state.
 *
 * <h2>How the methods are called</h2>
 *
 * <ol>
 *   <li>{@link #open} once per subtask, before any record; declare state handles there.
 *   <li>{@link #process} for each record, with the state handles scoped to that record's key.
 * </ol>
 *
 * All calls happen on the task's thread. State handles must not be used outside {@code process}.
 *
 * @param <K> key type
 * @param <T> input type
 * @param <R> output type
 */
public interface KeyedProcessFunction<K, T, R> extends Serializable {
    /** Declares the state this function uses; called once before the first record. */
    default void open(KeyedStateStore states) throws Exception {}

    /** Processes {@code value} whose key is {@code key}; emits results into {@code out}. */
    void process(K key, T value, Collector<R> out) throws Exception;
}
