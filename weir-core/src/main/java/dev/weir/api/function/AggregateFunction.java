package dev.weir.api.function;

import java.io.Serializable;

/**
 * Aggregates a window's records incrementally into an accumulator, so the window keeps one value
 * instead of its records: a count, a sum, an average as (sum, count).
 *
 * <p>Accumulators are stored in keyed state, whose checkpoint may still hold the one {@link #add}
 * was given: {@link #add} and {@link #merge} must return a new accumulator (or an immutable one,
 * such as a record or a boxed number) and not change the ones they are given.
 *
 * <p>Called on the task's thread of the window step, one call at a time: {@link #add} for each
 * record, {@link #getResult} when the window fires, {@link #merge} when session windows merge.
 *
 * @param <T> record type
 * @param <A> accumulator type
 * @param <R> result type
 */
public interface AggregateFunction<T, A, R> extends Serializable {
    /**
     * A new, empty accumulator (for a window's first record).
     *
     * @return a new accumulator; never one shared with another window
     */
    A createAccumulator();

    /**
     * The accumulator after {@code value}; must not change {@code accumulator}.
     *
     * @param value the record to add
     * @param accumulator the window's accumulator so far; do not change it
     * @return a new accumulator with {@code value} added
     * @throws Exception to fail the task; the restart strategy decides what follows
     */
    A add(T value, A accumulator) throws Exception;

    /**
     * The result of a window from its accumulator.
     *
     * @param accumulator the window's accumulator when it fires
     * @return the window's result, passed on to the window function
     * @throws Exception to fail the task; the restart strategy decides what follows
     */
    R getResult(A accumulator) throws Exception;

    /**
     * One accumulator holding both, for session windows that merge; must not change either. The
     * default refuses: implement it to use this function with session windows.
     *
     * @param a the accumulator of one window
     * @param b the accumulator of the other window
     * @return a new accumulator with the contents of both
     * @throws Exception to fail the task; the restart strategy decides what follows
     */
    default A merge(A a, A b) throws Exception {
        throw new UnsupportedOperationException(
                getClass().getName()
                        + " does not implement AggregateFunction.merge, which session windows need");
    }
}
