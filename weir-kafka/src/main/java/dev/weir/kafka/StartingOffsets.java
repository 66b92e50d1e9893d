package dev.weir.kafka;

import java.io.Serializable;
import java.time.Instant;
import java.util.Objects;

/**
 * Where a {@link KafkaSource} starts reading a partition that no checkpoint covers: the partitions
 * found when a job starts without a checkpoint. Partitions that appear later (found by partition
 * discovery) are new and always start at their earliest offset. A restored checkpoint always wins:
 * its offsets are where reading resumes.
 */
public sealed interface StartingOffsets extends Serializable {
    /**
     * The earliest offset still in the partition.
     *
     * @return the starting offsets
     */
    static StartingOffsets earliest() {
        return new Earliest();
    }

    /**
     * The end of the partition when the job starts: only records produced later are read.
     *
     * @return the starting offsets
     */
    static StartingOffsets latest() {
        return new Latest();
    }

    /**
     * The first record whose timestamp is at or after {@code time}; the end of the partition if
     * there is none.
     *
     * @param time the earliest record timestamp to read (millisecond precision)
     * @return the starting offsets
     */
    static StartingOffsets timestamp(Instant time) {
        return new Timestamp(time.toEpochMilli());
    }

    /**
     * The offsets committed to Kafka for the source's {@link KafkaSource#groupId group}, and {@code
     * fallback} for partitions without one. Weir commits them only for monitoring (see {@link
     * KafkaSource#groupId}), so this is for moving a job from another consumer to Weir, not for
     * recovery: recovery uses the checkpoint.
     *
     * @param fallback where partitions without a committed offset start; not itself {@code
     *     committed}
     * @return the starting offsets
     * @throws IllegalArgumentException if {@code fallback} is committed offsets
     */
    static StartingOffsets committed(StartingOffsets fallback) {
        Objects.requireNonNull(fallback, "fallback");
        if (fallback instanceof Committed) {
            throw new IllegalArgumentException("the fallback of committed offsets cannot be one");
        }
        return new Committed(fallback);
    }

    /** The earliest offset. */
    record Earliest() implements StartingOffsets {}

    /** The end offset at start. */
    record Latest() implements StartingOffsets {}

    /**
     * The first offset at or after a time.
     *
     * @param epochMillis milliseconds since the epoch
     * @serial exclude
     */
    record Timestamp(long epochMillis) implements StartingOffsets {}

    /**
     * Committed group offsets.
     *
     * @param fallback where partitions without a committed offset start
     * @serial exclude
     */
    record Committed(StartingOffsets fallback) implements StartingOffsets {}
}
