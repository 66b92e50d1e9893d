package dev.weir.api.function;

import dev.weir.api.OutputTag;
import dev.weir.api.window.TimeWindow;
import java.io.Serializable;

/**
 * Computes a window's results when it fires, seeing its key, the window and its records (or, after
 * an incremental {@code reduce}/{@code aggregate}, the one aggregated value).
 *
 * <p>Called on the task of the window's key, one call at a time: once per window when time passes
 * its end, and again for each late record that the allowed lateness still admits (with all the
 * window's records so far, so the new result replaces the old one).
 *
 * @param <K> key type
 * @param <T> type of the window's values
 * @param <R> result type
 */
@FunctionalInterface
public interface ProcessWindowFunction<K, T, R> extends Serializable {
    /**
     * Emits the results of {@code context.window()} for {@code key} into {@code out}.
     *
     * @param key the window's key
     * @param context the window, both clocks and side outputs; valid only during this call
     * @param elements the window's records in arrival order, or the one aggregated value; valid
     *     only during this call
     * @param out where to emit; valid only during this call
     * @throws Exception to fail the task; the restart strategy decides what follows
     */
    void process(K key, Context context, Iterable<T> elements, Collector<R> out) throws Exception;

    /** What a window function sees besides the records. */
    interface Context {
        /**
         * The window that fired.
         *
         * @return the window's start and end
         */
        TimeWindow window();

        /**
         * The watermark at the window's operator.
         *
         * @return milliseconds since the epoch; {@link Long#MIN_VALUE} before the first watermark,
         *     {@link Long#MAX_VALUE} once the input has ended
         */
        long currentWatermark();

        /**
         * The processing time now (the job's clock).
         *
         * @return milliseconds since the epoch
         */
        long currentProcessingTime();

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
