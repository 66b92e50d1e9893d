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

    /** Validates, naming the setting to change. */
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

    /** Fsync every batch, 64 MiB segments, index every 4 KiB, keep everything. */
    public static LogOptions defaults() {
        return new LogOptions(
                FsyncPolicy.EVERY_BATCH, Duration.ofMillis(100), 64L << 20, 4096, 0, Duration.ZERO);
    }

    public LogOptions withFsync(FsyncPolicy fsync) {
        return new LogOptions(
                fsync,
                fsyncInterval,
                segmentBytes,
                indexIntervalBytes,
                retentionBytes,
                retentionAge);
    }

    public LogOptions withSegmentBytes(long segmentBytes) {
        return new LogOptions(
                fsync,
                fsyncInterval,
                segmentBytes,
                indexIntervalBytes,
                retentionBytes,
                retentionAge);
    }

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
