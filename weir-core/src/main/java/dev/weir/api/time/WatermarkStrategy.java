package dev.weir.api.time;

import java.io.Serializable;
import java.time.Duration;
import java.util.Objects;

/**
 * How a stream gets event time: a {@link TimestampAssigner} that reads each record's timestamp and
 * a {@link WatermarkGenerator} that says how far event time has advanced.
 *
 * <pre>{@code
 * stream.assignTimestampsAndWatermarks(
 *         WatermarkStrategy.<Bid>forBoundedOutOfOrderness(Duration.ofSeconds(5))
 *                 .withTimestampAssigner((bid, previous) -> bid.timeMillis()));
 * }</pre>
 *
 * @param <T> record type
 */
public final class WatermarkStrategy<T> implements Serializable {
    private static final long serialVersionUID = 1L;

    /**
     * Makes one generator per subtask (per split when the strategy is given to a source), each time
     * the subtask starts, so also after a restore.
     *
     * @param <T> record type
     */
    @FunctionalInterface
    public interface GeneratorFactory<T> extends Serializable {
        /**
         * Makes a new generator with no state of its own yet.
         *
         * @return a new generator; never one shared with another call
         */
        WatermarkGenerator<T> create();
    }

    /** Makes the watermark generators. */
    private final GeneratorFactory<T> generators;

    /** Reads event time from records; null if none was set. */
    private final TimestampAssigner<T> assigner;

    /** Idleness timeout in milliseconds; 0 for never idle. */
    private final long idleTimeoutMillis;

    private WatermarkStrategy(
            GeneratorFactory<T> generators, TimestampAssigner<T> assigner, long idleTimeoutMillis) {
        this.generators = generators;
        this.assigner = assigner;
        this.idleTimeoutMillis = idleTimeoutMillis;
    }

    /**
     * Timestamps never decrease within a subtask's input: the watermark follows the largest
     * timestamp seen.
     *
     * @param <T> the record type
     * @return a strategy without a timestamp assigner; add one with {@link #withTimestampAssigner}
     */
    public static <T> WatermarkStrategy<T> forMonotonousTimestamps() {
        return forBoundedOutOfOrderness(Duration.ZERO);
    }

    /**
     * Records arrive at most {@code maxOutOfOrderness} later than a record with a larger timestamp:
     * the watermark trails the largest timestamp seen by that much.
     *
     * @param <T> the record type
     * @param maxOutOfOrderness how far a record may trail the largest timestamp seen; not negative
     * @return a strategy without a timestamp assigner; add one with {@link #withTimestampAssigner}
     * @throws IllegalArgumentException if {@code maxOutOfOrderness} is negative
     */
    public static <T> WatermarkStrategy<T> forBoundedOutOfOrderness(Duration maxOutOfOrderness) {
        long bound = maxOutOfOrderness.toMillis();
        if (bound < 0) {
            throw new IllegalArgumentException("maxOutOfOrderness must not be negative");
        }
        return new WatermarkStrategy<>(() -> new BoundedOutOfOrderness<>(bound), null, 0);
    }

    /**
     * A strategy with a generator of the user's own.
     *
     * @param <T> the record type
     * @param generators makes one generator per subtask (per split when given to a source)
     * @return a strategy without a timestamp assigner; add one with {@link #withTimestampAssigner}
     */
    public static <T> WatermarkStrategy<T> forGenerator(GeneratorFactory<T> generators) {
        return new WatermarkStrategy<>(Objects.requireNonNull(generators, "generators"), null, 0);
    }

    /**
     * This strategy, reading timestamps with {@code assigner}.
     *
     * @param assigner reads each record's event time
     * @return a new strategy; this one is unchanged
     */
    public WatermarkStrategy<T> withTimestampAssigner(TimestampAssigner<T> assigner) {
        return new WatermarkStrategy<>(
                generators, Objects.requireNonNull(assigner, "assigner"), idleTimeoutMillis);
    }

    /**
     * This strategy, marking a subtask idle once it saw no record for {@code timeout} of processing
     * time (checked every auto-watermark interval): consumers then leave it out of the minimum that
     * makes their watermark, so a split or partition without data does not hold event time back for
     * the whole job. Its next record makes it active again, with the watermark it had; records it
     * then sends may be late for windows that fired meanwhile.
     *
     * @param timeout processing time without records after which a subtask or split is idle; at
     *     least 1 ms
     * @return a new strategy; this one is unchanged
     * @throws IllegalArgumentException if {@code timeout} is under 1 ms
     */
    public WatermarkStrategy<T> withIdleness(Duration timeout) {
        long millis = Objects.requireNonNull(timeout, "timeout").toMillis();
        if (millis <= 0) {
            throw new IllegalArgumentException(
                    "idleness timeout must be at least 1 ms: " + timeout);
        }
        return new WatermarkStrategy<>(generators, assigner, millis);
    }

    /**
     * The idleness timeout in ms, or 0 if a subtask is never marked idle.
     *
     * @return milliseconds, or 0
     */
    public long idleTimeoutMillis() {
        return idleTimeoutMillis;
    }

    /**
     * The timestamp assigner, or null if records keep the timestamps they carry.
     *
     * @return the assigner, or null
     */
    public TimestampAssigner<T> timestampAssigner() {
        return assigner;
    }

    /**
     * A new generator (one per subtask).
     *
     * @return a new generator with no state of its own yet
     */
    public WatermarkGenerator<T> createGenerator() {
        return generators.create();
    }

    /** The generator of {@link #forBoundedOutOfOrderness}. */
    private static final class BoundedOutOfOrderness<T> implements WatermarkGenerator<T> {
        private final long bound;
        private long maxTimestamp = Long.MIN_VALUE;

        BoundedOutOfOrderness(long bound) {
            this.bound = bound;
        }

        @Override
        public void onEvent(T record, long timestamp, WatermarkOutput output) {
            maxTimestamp = Math.max(maxTimestamp, timestamp);
        }

        @Override
        public void onPeriodicEmit(WatermarkOutput output) {
            if (maxTimestamp != Long.MIN_VALUE) {
                output.emit(maxTimestamp - bound - 1);
            }
        }
    }
}
