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
    /** Emits the results of {@code context.window()} for {@code key} into {@code out}. */
    void process(K key, Context context, Iterable<T> elements, Collector<R> out) throws Exception;

    /** What a window function sees besides the records. */
    interface Context {
        /** The window that fired. */
        TimeWindow window();

        /** The watermark at the window's operator. */
        long currentWatermark();

        /** The processing time now (the job's clock). */
        long currentProcessingTime();

        /** Emits {@code value} into the side output {@code tag}. */
        <X> void output(OutputTag<X> tag, X value);
    }
}
