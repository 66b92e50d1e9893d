package dev.weir.api.function;

import dev.weir.api.OutputTag;
import dev.weir.api.state.KeyedStateStore;
import dev.weir.api.time.TimeDomain;
import dev.weir.api.time.TimerService;
import java.io.Serializable;

/**
 * Processes the records of a keyed stream with per-key state, timers and side outputs.
 *
 * <h2>How the methods are called</h2>
 *
 * <ol>
 *   <li>{@link #open} once per subtask, before any record: declare state handles there.
 *   <li>{@link #process} for each record, with every state handle scoped to the record's key
 *       ({@link Context#key()}).
 *   <li>{@link #onTimer} when a timer this function registered fires: an event-time timer once the
 *       watermark reaches its time, a processing-time timer once the clock does; state is scoped to
 *       the timer's key.
 *   <li>{@link #onEndOfInput} once when a bounded input has ended, after every event-time timer has
 *       fired (the watermark then stands at {@link Long#MAX_VALUE}): emit final results here.
 * </ol>
 *
 * All calls come one at a time from the task that runs this subtask (see {@code Pipeline} on
 * threads). State handles and contexts must not be used outside these calls or kept across them.
 * Timers are part of the checkpoint: they are restored with the keyed state, redistributed with it
 * when the job is rescaled, and a timer restored in the past fires at once.
 *
 * <p>A function that may block its thread for long (a call to a remote service, a throttle) should
 * be marked with {@code DataStream.blocking()} on the stream its step returns, so its subtasks run
 * on threads of their own instead of holding up the steps that share a worker.
 *
 * @param <K> key type
 * @param <T> input type
 * @param <R> output type
 */
public interface KeyedProcessFunction<K, T, R> extends Serializable {
    /**
     * Declares the state this function uses; called once before the first record.
     *
     * @param context declares state and tells which subtask this is; valid only during this call
     * @throws Exception to fail the task; the restart strategy decides what follows
     */
    default void open(OpenContext context) throws Exception {}

    /**
     * Processes {@code value}; emits results into {@code out}.
     *
     * @param value the record
     * @param context the record's key, timestamp, timers and side outputs; valid only during this
     *     call
     * @param out where to emit; valid only during this call
     * @throws Exception to fail the task; the restart strategy decides what follows
     */
    void process(T value, Context<K, R> context, Collector<R> out) throws Exception;

    /**
     * A timer registered for {@link OnTimerContext#key()} at {@code timestamp} fired; records
     * emitted here carry {@code timestamp} as their timestamp.
     *
     * @param timestamp the time the timer was registered for, in milliseconds of its time domain
     * @param context the timer's key, time domain, timers and side outputs; valid only during this
     *     call
     * @param out where to emit; valid only during this call
     * @throws Exception to fail the task; the restart strategy decides what follows
     */
    default void onTimer(long timestamp, OnTimerContext<K, R> context, Collector<R> out)
            throws Exception {}

    /**
     * The input ended: called once per subtask after all event-time timers fired; {@link
     * EndOfInputContext#forEachKey} visits every key that has state.
     *
     * @param context visits the keys and emits side outputs; valid only during this call
     * @param out where to emit; valid only during this call
     * @throws Exception to fail the task; the restart strategy decides what follows
     */
    default void onEndOfInput(EndOfInputContext<K, R> context, Collector<R> out) throws Exception {}

    /** What {@link #open} sees. */
    interface OpenContext {
        /**
         * Declares keyed state handles.
         *
         * @return the store to declare value, list and map state in; handles are scoped per key
         */
        KeyedStateStore states();

        /**
         * The name of this step in the pipeline.
         *
         * @return the step's name, as given to the pipeline
         */
        String stepName();

        /**
         * This subtask's index, from 0.
         *
         * @return a number from 0 to {@code parallelism() - 1}
         */
        int subtaskIndex();

        /**
         * The step's number of subtasks.
         *
         * @return the number of subtasks, at least 1
         */
        int parallelism();
    }

    /** What {@link #process} sees of the current record. */
    interface Context<K, R> {
        /**
         * The key of the current record (or timer).
         *
         * @return the key; not null
         */
        K key();

        /**
         * True if the current record carries a timestamp (event time).
         *
         * @return true if {@link #timestamp()} is meaningful
         */
        boolean hasTimestamp();

        /**
         * The current record's timestamp in milliseconds since the epoch, or {@link Long#MIN_VALUE}
         * if it has none (see {@link #hasTimestamp()}).
         *
         * @return the timestamp, or {@link Long#MIN_VALUE}
         */
        long timestamp();

        /**
         * Registers and deletes timers of the current key; reads both clocks.
         *
         * @return the timer service of this subtask, scoped to the current key
         */
        TimerService timers();

        /**
         * Emits {@code value} into the side output {@code tag}, with the current timestamp.
         *
         * @param <X> the type of the side output's records
         * @param tag the side output
         * @param value the record to emit; not null
         */
        <X> void output(OutputTag<X> tag, X value);
    }

    /** What {@link #onTimer} sees. */
    interface OnTimerContext<K, R> extends Context<K, R> {
        /**
         * Whether an event-time or a processing-time timer fired.
         *
         * @return {@link TimeDomain#EVENT_TIME} or {@link TimeDomain#PROCESSING_TIME}
         */
        TimeDomain timeDomain();
    }

    /** What {@link #onEndOfInput} sees. */
    interface EndOfInputContext<K, R> {
        /**
         * Calls {@code action} once for each key that has state, with every state handle scoped to
         * that key during the call.
         *
         * @param action called once per key, on this thread, before this method returns
         * @throws Exception if {@code action} throws; the exception is passed on unchanged
         */
        void forEachKey(KeyAction<K> action) throws Exception;

        /**
         * Emits {@code value} into the side output {@code tag}.
         *
         * @param <X> the type of the side output's records
         * @param tag the side output
         * @param value the record to emit; not null
         */
        <X> void output(OutputTag<X> tag, X value);
    }

    /** Work done for one key in {@link EndOfInputContext#forEachKey}. */
    @FunctionalInterface
    interface KeyAction<K> {
        /**
         * Visits {@code key}; its state is in scope.
         *
         * @param key a key that has state in this subtask
         * @throws Exception to fail the task; the restart strategy decides what follows
         */
        void accept(K key) throws Exception;
    }
}
