package dev.weir.api.time;

/**
 * Timers of the current key, and the two clocks they follow. Times are milliseconds since the
 * epoch. Registering a timer that already exists for the key changes nothing (one call of {@code
 * onTimer} per key and time); deleting one that does not exist is allowed.
 *
 * <p>Used from a keyed process function's calls only, on its task.
 */
public interface TimerService {
    /**
     * The wall clock now (the job's injected clock).
     *
     * @return milliseconds since the epoch
     */
    long currentProcessingTime();

    /**
     * The event time the job has reached at this operator: no record with a smaller timestamp is
     * expected any more. {@link Long#MIN_VALUE} before the first watermark.
     *
     * @return milliseconds since the epoch, or {@link Long#MIN_VALUE}
     */
    long currentWatermark();

    /**
     * Calls {@code onTimer} for the current key once the watermark reaches {@code time}.
     *
     * @param time event time in milliseconds since the epoch; a time at or behind the watermark
     *     fires when the next watermark arrives
     */
    void registerEventTimeTimer(long time);

    /**
     * Calls {@code onTimer} for the current key once the wall clock reaches {@code time}.
     *
     * <p>When a bounded input ends, processing-time timers that have not fired yet are dropped,
     * without a call (as in Flink): the job ends with its input, not with the wall clock. Work that
     * must happen at the end belongs in the function's {@code onEndOfInput}, which can visit every
     * key; event-time timers all fire before it.
     *
     * @param time processing time in milliseconds since the epoch; a time already past fires soon,
     *     after this call returns
     */
    void registerProcessingTimeTimer(long time);

    /**
     * Deletes the current key's event-time timer at {@code time}, if any: it will not call {@code
     * onTimer}, and from the next checkpoint on it is not in the checkpoint either (a restore does
     * not bring it back). Deleting a timer that does not exist, already fired or is firing now does
     * nothing.
     *
     * <p>Call it from the function's {@code process} or {@code onTimer}, which run on the step's
     * task thread (the thread that calls the function for every record and timer of its keys): it
     * concerns the key of that call only. Session windows use it to drop the timers of a session a
     * merge absorbed. Costs about as much as registering a timer.
     *
     * @param time the time the timer was registered for
     */
    void deleteEventTimeTimer(long time);

    /**
     * Deletes the current key's processing-time timer at {@code time}, if any: it will not call
     * {@code onTimer}, and from the next checkpoint on it is not in the checkpoint either. Deleting
     * a timer that does not exist, already fired or is firing now does nothing.
     *
     * <p>Call it from the function's {@code process} or {@code onTimer}, on the step's task thread,
     * as {@link #deleteEventTimeTimer}; it concerns the key of that call only.
     *
     * @param time the time the timer was registered for
     */
    void deleteProcessingTimeTimer(long time);
}
