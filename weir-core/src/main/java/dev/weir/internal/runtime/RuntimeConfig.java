package dev.weir.internal.runtime;

/**
 * Settings of one job's runtime, validated at construction.
 *
 * @param jobName the job's name, used in thread names and messages
 * @param defaultParallelism parallelism of operators that set none
 * @param maxParallelism number of key groups; the upper bound of any keyed parallelism
 * @param batchSize records per batch sent between tasks
 * @param channelCapacityBatches batches a channel holds before backpressure
 * @param channelCapacityBytes estimated bytes of records a channel holds before backpressure; 0 = a
 *     quarter of the heap shared by all channels
 * @param workerThreads threads that run the cooperative tasks
 * @param maxIdleParkNanos longest a worker parks when none of its tasks can progress
 * @param autoWatermarkMillis how often timestamp assigners emit periodic watermarks (0 = only on
 *     events and at the end of input)
 * @param watermarkAlignmentMillis how far in event time a source subtask may run ahead of its
 *     slowest sibling before it waits (0 = sources are not aligned; see {@link SourceAlignment})
 */
public record RuntimeConfig(
        String jobName,
        int defaultParallelism,
        int maxParallelism,
        int batchSize,
        int channelCapacityBatches,
        long channelCapacityBytes,
        int workerThreads,
        long maxIdleParkNanos,
        long autoWatermarkMillis,
        long watermarkAlignmentMillis) {
    /** Bound on key groups, as in Flink: 2^15. */
    public static final int MAX_KEY_GROUPS = 1 << 15;

    /** Validates every field, naming the setting to change. */
    public RuntimeConfig {
        requireRange("parallelism", defaultParallelism, 1, MAX_KEY_GROUPS);
        requireRange("maxParallelism", maxParallelism, 1, MAX_KEY_GROUPS);
        requireRange("batchSize", batchSize, 1, 1 << 16);
        requireRange("channelCapacityBatches", channelCapacityBatches, 2, 1 << 16);
        requireRange("workerThreads", workerThreads, 1, 1024);
        if (autoWatermarkMillis < 0) {
            throw new IllegalArgumentException(
                    "autoWatermarkInterval must not be negative, got " + autoWatermarkMillis);
        }
        if (watermarkAlignmentMillis < 0) {
            throw new IllegalArgumentException(
                    "watermarkAlignment must not be negative (zero turns it off), got "
                            + watermarkAlignmentMillis
                            + " ms");
        }
        if (channelCapacityBytes < 0) {
            throw new IllegalArgumentException(
                    "channelCapacityBytes must be >= 0 (0 = automatic), got "
                            + channelCapacityBytes);
        }
        if (maxIdleParkNanos < 1_000 || maxIdleParkNanos > 100_000_000) {
            throw new IllegalArgumentException(
                    "maxIdleParkNanos must be within 1 µs .. 100 ms: " + maxIdleParkNanos);
        }
    }

    static void requireRange(String setting, int value, int min, int max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(
                    setting + " must be within " + min + ".." + max + ", got " + value);
        }
    }
}
