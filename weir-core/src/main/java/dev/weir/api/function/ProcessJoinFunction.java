package dev.weir.api.function;

import dev.weir.api.OutputTag;
import java.io.Serializable;

/**
 * Turns a pair of joined records into results: called once for each left and right record of the
 * same key whose timestamps are within the join's interval ({@code KeyedStream.intervalJoin}).
 *
 * <p>Called on the task's thread of the join step, one call at a time, when the second record of a
 * pair arrives; an exception fails the task.
 *
 * @param <L> left record type
 * @param <R> right record type
 * @param <O> result type
 */
@FunctionalInterface
public interface ProcessJoinFunction<L, R, O> extends Serializable {
    /**
     * Emits the results of joining {@code left} with {@code right} into {@code out}.
     *
     * @param left the left record
     * @param right the right record; its time is within the interval of the left record's
     * @param context the two timestamps and side outputs; valid only during this call
     * @param out where to emit; valid only during this call
     * @throws Exception to fail the task; the restart strategy decides what follows
     */
    void process(L left, R right, Context context, Collector<O> out) throws Exception;

    /** What a join function sees besides the two records. */
    interface Context {
        /**
         * The left record's timestamp.
         *
         * @return milliseconds since the epoch
         */
        long leftTimestamp();

        /**
         * The right record's timestamp.
         *
         * @return milliseconds since the epoch
         */
        long rightTimestamp();

        /**
         * Emits {@code value} into the side output {@code tag}.
         *
         * @param <X> the type of the side output's records
         * @param tag the side output
         * @param value the record to emit; not null
         */
        <X> void output(OutputTag<X> tag, X value);
    }
}
