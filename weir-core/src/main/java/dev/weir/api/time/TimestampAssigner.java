package dev.weir.api.time;

import java.io.Serializable;

/**
 * Extracts a record's event time.
 *
 * <p>Called on the task's thread of the step that assigns timestamps (or of the source, per split),
 * once per record and before the watermark generator sees it. It should be quick; an exception it
 * throws fails the task.
 *
 * @param <T> record type
 */
@FunctionalInterface
public interface TimestampAssigner<T> extends Serializable {
    /**
     * Returns the event time of {@code record} in milliseconds since the epoch; {@code
     * previousTimestamp} is the timestamp it carried before, or {@link Long#MIN_VALUE}.
     *
     * @param record the record
     * @param previousTimestamp the record's timestamp so far, or {@link Long#MIN_VALUE} if it had
     *     none
     * @return the record's event time in milliseconds since the epoch
     */
    long extractTimestamp(T record, long previousTimestamp);
}
