package dev.weir.api.time;

/**
 * Decides how far event time has advanced, from the timestamps it sees.
 *
 * <h2>How the methods are called</h2>
 *
 * On one task, one call at a time: {@link #onEvent} for each record after its timestamp is
 * assigned; {@link #onPeriodicEmit} every {@code Pipeline.autoWatermarkInterval} of processing time
 * (default 50 ms). Either may emit a watermark; a watermark lower than one already emitted is
 * ignored. Its state is not checkpointed: after a restore it starts afresh, and the runtime never
 * lets the emitted watermark go back.
 *
 * @param <T> record type
 */
public interface WatermarkGenerator<T> {
    /**
     * Sees a record and its timestamp; may call {@code output.emit}.
     *
     * @param record the record
     * @param timestamp its event time in milliseconds since the epoch, as the assigner gave it
     * @param output where to emit a watermark; valid only during this call
     */
    void onEvent(T record, long timestamp, WatermarkOutput output);

    /**
     * Called periodically; may call {@code output.emit}.
     *
     * @param output where to emit a watermark; valid only during this call
     */
    void onPeriodicEmit(WatermarkOutput output);

    /** Where a generator emits watermarks. */
    interface WatermarkOutput {
        /**
         * Declares that no record with a timestamp at or below {@code watermark} is expected.
         *
         * @param watermark event time in milliseconds since the epoch
         */
        void emit(long watermark);
    }
}
