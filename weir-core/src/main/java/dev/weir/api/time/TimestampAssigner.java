package dev.weir.api.time;

import java.io.Serializable;

/**
 * Extracts a record's event time.
 *
 * @param <T> record type
 */
@FunctionalInterface
public interface TimestampAssigner<T> extends Serializable {
    /**
     * Returns the event time of {@code record} in milliseconds since the epoch; {@code
     * previousTimestamp} is the timestamp it carried before, or {@link Long#MIN_VALUE}.
     */
    long extractTimestamp(T record, long previousTimestamp);
}
