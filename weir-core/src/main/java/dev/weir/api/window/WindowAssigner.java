package dev.weir.api.window;

import dev.weir.api.time.TimeDomain;
import java.io.Serializable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * Says which windows a record belongs to: tumbling (fixed, adjacent), sliding (fixed, overlapping)
 * or session windows (a key's records closer than a gap share one window), in event time (the
 * records' timestamps, windows fire as the watermark passes) or processing time (the clock when a
 * record arrives).
 *
 * <pre>{@code
 * stream.keyBy(Click::user)
 *         .window(WindowAssigner.tumbling(Duration.ofMinutes(1)))
 *         .aggregate("clicks-per-minute", new CountClicks(), Codecs.LONG);
 * }</pre>
 *
 * An immutable value, so that a runner can translate it (the Flink runner maps it to Flink's
 * assigners). Windows are aligned to the epoch, shifted by an optional offset.
 */
public final class WindowAssigner implements Serializable {
    private static final long serialVersionUID = 1L;

    /** The shape of the windows. */
    public enum Kind {
        /** Windows of {@code size} one after the other; a record is in one window. */
        TUMBLING,
        /** Windows of {@code size} starting every {@code slide}; a record is in size/slide. */
        SLIDING,
        /** One window per burst of a key's records, closed by a {@code gap} without records. */
        SESSION
    }

    /** The shape of the windows. */
    private final Kind kind;

    /** Event time or processing time. */
    private final TimeDomain domain;

    /** Window length in milliseconds; the gap for sessions. */
    private final long sizeMillis;

    /** Time between window starts in milliseconds; 0 for sessions. */
    private final long slideMillis;

    /** Shift of the window starts in milliseconds. */
    private final long offsetMillis;

    private WindowAssigner(
            Kind kind, TimeDomain domain, long sizeMillis, long slideMillis, long offsetMillis) {
        this.kind = kind;
        this.domain = domain;
        this.sizeMillis = sizeMillis;
        this.slideMillis = slideMillis;
        this.offsetMillis = offsetMillis;
    }

    /**
     * Event-time tumbling windows of {@code size}: {@code [0, size), [size, 2 size), ...}.
     *
     * @param size the length of each window; at least 1 ms
     * @return the assigner
     * @throws IllegalArgumentException if {@code size} is under 1 ms
     */
    public static WindowAssigner tumbling(Duration size) {
        return tumbling(size, Duration.ZERO);
    }

    /**
     * Event-time tumbling windows of {@code size} starting at multiples of size plus offset.
     *
     * @param size the length of each window; at least 1 ms
     * @param offset shift of the window starts; shorter than {@code size}, may be negative (such as
     *     a time zone's offset)
     * @return the assigner
     * @throws IllegalArgumentException if {@code size} is under 1 ms or {@code offset} is not
     *     shorter than it
     */
    public static WindowAssigner tumbling(Duration size, Duration offset) {
        long sizeMillis = positive("size", size);
        return new WindowAssigner(
                Kind.TUMBLING,
                TimeDomain.EVENT_TIME,
                sizeMillis,
                sizeMillis,
                offset(offset, sizeMillis));
    }

    /**
     * Event-time sliding windows of {@code size}, a new one every {@code slide}.
     *
     * @param size the length of each window; at least 1 ms
     * @param slide the time between window starts; at least 1 ms and at most {@code size}
     * @return the assigner
     * @throws IllegalArgumentException if {@code size} or {@code slide} is under 1 ms, or {@code
     *     slide} is longer than {@code size}
     */
    public static WindowAssigner sliding(Duration size, Duration slide) {
        long sizeMillis = positive("size", size);
        long slideMillis = positive("slide", slide);
        if (slideMillis > sizeMillis) {
            throw new IllegalArgumentException(
                    "sliding windows: slide "
                            + slide
                            + " is longer than size "
                            + size
                            + ", so some records would be in no window; use a slide <= size");
        }
        return new WindowAssigner(Kind.SLIDING, TimeDomain.EVENT_TIME, sizeMillis, slideMillis, 0);
    }

    /**
     * Event-time session windows: a key's window closes after {@code gap} without a record.
     *
     * @param gap the time without records that closes a session; at least 1 ms
     * @return the assigner
     * @throws IllegalArgumentException if {@code gap} is under 1 ms
     */
    public static WindowAssigner session(Duration gap) {
        long gapMillis = positive("gap", gap);
        return new WindowAssigner(Kind.SESSION, TimeDomain.EVENT_TIME, gapMillis, 0, 0);
    }

    /**
     * These windows in processing time: by the clock when a record arrives.
     *
     * @return a new assigner with the same shape in processing time; this one is unchanged
     */
    public WindowAssigner inProcessingTime() {
        return new WindowAssigner(
                kind, TimeDomain.PROCESSING_TIME, sizeMillis, slideMillis, offsetMillis);
    }

    /**
     * The shape of the windows.
     *
     * @return tumbling, sliding or session
     */
    public Kind kind() {
        return kind;
    }

    /**
     * Event time or processing time.
     *
     * @return {@link TimeDomain#EVENT_TIME} unless {@link #inProcessingTime} was called
     */
    public TimeDomain timeDomain() {
        return domain;
    }

    /**
     * Window size in ms; for sessions the gap.
     *
     * @return the size or gap, in milliseconds
     */
    public long sizeMillis() {
        return sizeMillis;
    }

    /**
     * Slide in ms (the size for tumbling windows, 0 for sessions).
     *
     * @return the slide, in milliseconds
     */
    public long slideMillis() {
        return slideMillis;
    }

    /**
     * Offset of the window starts from multiples of the slide, in ms.
     *
     * @return the offset, in milliseconds; 0 unless set on tumbling windows
     */
    public long offsetMillis() {
        return offsetMillis;
    }

    /**
     * True for session windows, whose windows merge as records arrive.
     *
     * @return true if windows of a key can merge
     */
    public boolean isMerging() {
        return kind == Kind.SESSION;
    }

    /**
     * The windows a record with {@code timestamp} belongs to, earliest first (for sessions, the
     * record's own window {@code [timestamp, timestamp + gap)}, before merging).
     *
     * @param timestamp the record's event time or, in processing time, the clock now; milliseconds
     *     since the epoch
     * @return one window for tumbling and sessions, about size/slide windows for sliding; never
     *     empty
     */
    public List<TimeWindow> assignWindows(long timestamp) {
        switch (kind) {
            case TUMBLING:
                long start = timestamp - Math.floorMod(timestamp - offsetMillis, sizeMillis);
                return List.of(new TimeWindow(start, start + sizeMillis));
            case SLIDING:
                long last = timestamp - Math.floorMod(timestamp - offsetMillis, slideMillis);
                List<TimeWindow> windows = new ArrayList<>((int) (sizeMillis / slideMillis) + 1);
                for (long s = last; s > timestamp - sizeMillis; s -= slideMillis) {
                    windows.add(new TimeWindow(s, s + sizeMillis));
                }
                Collections.reverse(windows);
                return windows;
            case SESSION:
                return List.of(new TimeWindow(timestamp, timestamp + sizeMillis));
            default:
                throw new AssertionError(kind);
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof WindowAssigner other
                && kind == other.kind
                && domain == other.domain
                && sizeMillis == other.sizeMillis
                && slideMillis == other.slideMillis
                && offsetMillis == other.offsetMillis;
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, domain, sizeMillis, slideMillis, offsetMillis);
    }

    @Override
    public String toString() {
        String shape =
                switch (kind) {
                    case TUMBLING -> "tumbling(" + sizeMillis + " ms)";
                    case SLIDING -> "sliding(" + sizeMillis + " ms every " + slideMillis + " ms)";
                    case SESSION -> "session(gap " + sizeMillis + " ms)";
                };
        return domain == TimeDomain.EVENT_TIME ? shape : shape + " in processing time";
    }

    private static long positive(String what, Duration duration) {
        Objects.requireNonNull(duration, what);
        long millis = duration.toMillis();
        if (millis <= 0) {
            throw new IllegalArgumentException(
                    "window " + what + " must be at least 1 ms, got " + duration);
        }
        return millis;
    }

    private static long offset(Duration offset, long sizeMillis) {
        Objects.requireNonNull(offset, "offset");
        long millis = offset.toMillis();
        if (Math.abs(millis) >= sizeMillis) {
            throw new IllegalArgumentException(
                    "window offset " + offset + " must be smaller than the size");
        }
        return millis;
    }
}
