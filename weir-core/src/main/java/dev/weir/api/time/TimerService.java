package dev.weir.api.time;

/**
 * Timers of the current key, and the two clocks they follow. Times are milliseconds since the
 * epoch. Registering a timer that already exists for the key changes nothing (one call of {@code
 * onTimer} per key and time); deleting one that does not exist is allowed.
 *
 * <p>Used from a keyed process function's calls only, on its task.
 */
public interface TimerService {
    /** The wall clock now (the job's injected clock). */
    long currentProcessingTime();

    /**
     * The event time the job has reached at this operator: no record with a smaller timestamp is
     * expected any more. {@link Long#MIN_VALUE} before the first watermark.
     */
    long currentWatermark();

    /** Calls {@code onTimer} for the current key once the watermark reaches {@code time}. */
    void registerEventTimeTimer(long time);

    /** Calls {@code onTimer} for the current key once the wall clock reaches {@code time}. */
    void registerProcessingTimeTimer(long time);

    /** Deletes the current key's event-time timer at {@code time}, if any. */
    void deleteEventTimeTimer(long time);

    /** Deletes the current key's processing-time timer at {@code time}, if any. */
    void deleteProcessingTimeTimer(long time);
}
