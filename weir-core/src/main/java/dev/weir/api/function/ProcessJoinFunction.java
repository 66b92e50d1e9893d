package dev.weir.api.function;

import dev.weir.api.OutputTag;
import java.io.Serializable;

/**
 * Turns a pair of joined records into results: called once for each left and right record of the
 * same key whose timestamps are within the join's interval ({@code KeyedStream.intervalJoin}).
 *
 * @param <L> left record type
 * @param <R> right record type
 * @param <O> result type
 */
@FunctionalInterface
public interface ProcessJoinFunction<L, R, O> extends Serializable {
    /** Emits the results of joining {@code left} with {@code right} into {@code out}. */
    void process(L left, R right, Context context, Collector<O> out) throws Exception;

    /** What a join function sees besides the two records. */
    interface Context {
        /** The left record's timestamp. */
        long leftTimestamp();

        /** The right record's timestamp. */
        long rightTimestamp();

        /** Emits {@code value} into the side output {@code tag}. */
        <X> void output(OutputTag<X> tag, X value);
    }
}
