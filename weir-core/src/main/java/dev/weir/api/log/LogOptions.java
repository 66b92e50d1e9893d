package dev.weir.api.log;

import java.time.Duration;
import java.util.Objects;

/**
 * How a {@link DurableLog} stores data.
 *
 * @param fsync when appended records are forced to disk
 * @param fsyncInterval for {@link FsyncPolicy#INTERVAL}: the longest time unsynced data may wait
 * @param segmentBytes size at which a partition rolls to a new segment file
 * @param indexIntervalBytes log bytes between two entries of the sparse offset index
 * @param retentionBytes per partition, oldest segments beyond this size are deleted (0 = keep all)
 * @param retentionAge segments whose newest record is older than this are deleted (zero = keep)
 * @serial exclude
 */
public record LogOptions(
        FsyncPolicy fsync,
        Duration fsyncInterval,
        long segmentBytes,
        int indexIntervalBytes,
        long retentionBytes,
        Duration retentionAge)
        implements java.io.Serializable {
    /** When data is forced to disk. */
    public enum FsyncPolicy {
        /** Every {@code append} call returns only after its batch is on disk. */
        EVERY_BATCH,
        /** An append forces the file when {@code fsyncInterval} passed since the last force. */
        INTERVAL,
        /** Never forced by Weir; the OS writes back. A power cut may lose recent appends. */
        NEVER
    }

    /**
     * Validates, naming the setting to change.
     *
     * @param fsync when appended records are forced to disk; not null
     * @param fsyncInterval the longest wait of unsynced data under {@link FsyncPolicy#INTERVAL};
     *     not null, ignored by the other policies
     * @param segmentBytes segment size at which a partition rolls, 1 KiB to 2 GiB
     * @param indexIntervalBytes log bytes between index entries, at least 64; smaller means a
     *     bigger index and faster seeks
     * @param retentionBytes bytes kept per partition, 0 to keep all
     * @param retentionAge age after which a segment is deleted, zero to keep all; not null
     * @throws NullPointerException if {@code fsync}, {@code fsyncInterval} or {@code retentionAge}
     *     is null
     * @throws IllegalArgumentException if a size is out of range or a retention is negative
     */
    public LogOptions {
        Objects.requireNonNull(fsync, "fsync");
        Objects.requireNonNull(fsyncInterval, "fsyncInterval");
        Objects.requireNonNull(retentionAge, "retentionAge");
        if (segmentBytes < 1024 || segmentBytes > (1L << 31) - 1) {
            throw new IllegalArgumentException(
                    "segmentBytes must be within 1 KiB .. 2 GiB: " + segmentBytes);
        }
        if (indexIntervalBytes < 64) {
            throw new IllegalArgumentException(
                    "indexIntervalBytes must be >= 64: " + indexIntervalBytes);
        }
        if (retentionBytes < 0 || retentionAge.isNegative()) {
            throw new IllegalArgumentException("retention must not be negative");
        }
    }

    /**
     * Fsync every batch, 64 MiB segments, index every 4 KiB, keep everything.
     *
     * @return the defaults; the safest choice, and the slowest for small batches
     */
    public static LogOptions defaults() {
        return new LogOptions(
                FsyncPolicy.EVERY_BATCH, Duration.ofMillis(100), 64L << 20, 4096, 0, Duration.ZERO);
    }

    /**
     * A copy with another fsync policy.
     *
     * @param fsync when appended records are forced to disk
     * @return the copy
     */
    public LogOptions withFsync(FsyncPolicy fsync) {
        return new LogOptions(
                fsync,
                fsyncInterval,
                segmentBytes,
                indexIntervalBytes,
                retentionBytes,
                retentionAge);
    }

    /**
     * A copy with another segment size. Retention deletes whole segments, so smaller segments let
     * it free space sooner.
     *
     * @param segmentBytes the size at which a partition rolls to a new segment, 1 KiB to 2 GiB
     * @return the copy
     * @throws IllegalArgumentException if {@code segmentBytes} is out of range
     */
    public LogOptions withSegmentBytes(long segmentBytes) {
        return new LogOptions(
                fsync,
                fsyncInterval,
                segmentBytes,
                indexIntervalBytes,
                retentionBytes,
                retentionAge);
    }

    /**
     * A copy with other retention limits; a segment is deleted when either limit says so.
     *
     * @param retentionBytes bytes kept per partition, 0 to keep all
     * @param retentionAge age of a segment's newest record after which it is deleted, {@link
     *     Duration#ZERO} to keep all
     * @return the copy
     * @throws IllegalArgumentException if either is negative
     */
    public LogOptions withRetention(long retentionBytes, Duration retentionAge) {
        return new LogOptions(
                fsync,
                fsyncInterval,
                segmentBytes,
                indexIntervalBytes,
                retentionBytes,
                retentionAge);
    }
}
