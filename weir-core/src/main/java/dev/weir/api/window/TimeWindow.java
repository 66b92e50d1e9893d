package dev.weir.api.window;

import dev.weir.api.codec.Codec;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;

/**
 * A window of time: the half-open interval {@code [start, end)} in milliseconds (event time or
 * processing time, as its {@link WindowAssigner} says). A record with timestamp {@code t} belongs
 * to it if {@code start <= t < end}; the window fires once time reaches {@link #maxTimestamp()}.
 *
 * @param start first millisecond in the window
 * @param end first millisecond after the window
 */
public record TimeWindow(long start, long end) implements Comparable<TimeWindow> {
    /** The codec windows are stored with in checkpoints (two longs). */
    public static final Codec<TimeWindow> CODEC = new WindowCodec();

    /**
     * Validates the bounds.
     *
     * @param start first millisecond in the window
     * @param end first millisecond after the window; after {@code start}
     * @throws IllegalArgumentException if {@code end} is not after {@code start}
     */
    public TimeWindow {
        if (end <= start) {
            throw new IllegalArgumentException(
                    "a window ends after it starts: [" + start + ", " + end + ")");
        }
    }

    /**
     * The last millisecond in the window, {@code end - 1}: the time at which it fires.
     *
     * @return {@code end - 1}
     */
    public long maxTimestamp() {
        return end - 1;
    }

    /**
     * True if the windows overlap or touch (sessions that touch are merged).
     *
     * @param other the other window
     * @return true if they share a millisecond or one ends where the other starts
     */
    public boolean intersects(TimeWindow other) {
        return start <= other.end && other.start <= end;
    }

    /**
     * The smallest window covering this one and {@code other}.
     *
     * @param other the other window
     * @return the window from the earlier start to the later end
     */
    public TimeWindow cover(TimeWindow other) {
        return new TimeWindow(Math.min(start, other.start), Math.max(end, other.end));
    }

    /** Orders by start, then end. */
    @Override
    public int compareTo(TimeWindow other) {
        int byStart = Long.compare(start, other.start);
        return byStart != 0 ? byStart : Long.compare(end, other.end);
    }

    @Override
    public String toString() {
        return "[" + start + ", " + end + ")";
    }

    private static final class WindowCodec implements Codec<TimeWindow> {
        private static final long serialVersionUID = 1L;

        @Override
        public void encode(TimeWindow value, DataOutput out) throws IOException {
            out.writeLong(value.start);
            out.writeLong(value.end);
        }

        @Override
        public TimeWindow decode(DataInput in) throws IOException {
            return new TimeWindow(in.readLong(), in.readLong());
        }

        @Override
        public String id() {
            return "weir.time-window.v1";
        }
    }
}
