package dev.weir.api.time;

/** The clock a timer follows. */
public enum TimeDomain {
    /** Fires when the watermark reaches the timer's time (record time). */
    EVENT_TIME,
    /** Fires when the wall clock reaches the timer's time. */
    PROCESSING_TIME
}
