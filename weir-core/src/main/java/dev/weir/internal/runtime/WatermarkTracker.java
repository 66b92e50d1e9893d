package dev.weir.internal.runtime;

import dev.weir.internal.operators.Output;
import java.util.Arrays;

/**
 * The watermark of a task with several input channels: the minimum over the channels that have not
 * ended and are not idle, which only ever grows (a channel's own watermark never goes back either).
 * When every open channel is idle, so is the task. Single-threaded: the task's.
 */
final class WatermarkTracker {
    private final long[] channels;
    private final boolean[] ended;
    private final boolean[] idle;
    private long current = Long.MIN_VALUE;

    /** True while every open channel is idle (and the task said so downstream). */
    private boolean taskIdle;

    /** The watermark the task reached as every channel went idle, to emit before the idleness. */
    private long flushed = Long.MIN_VALUE;

    /**
     * After {@link Output#IDLE} was returned: the watermark to emit first (the largest over the
     * channels, now that all are idle), or {@link Long#MIN_VALUE}; once.
     */
    long takeFlushed() {
        long value = flushed;
        flushed = Long.MIN_VALUE;
        return value;
    }

    WatermarkTracker(int channels) {
        this.channels = new long[channels];
        this.ended = new boolean[channels];
        this.idle = new boolean[channels];
        Arrays.fill(this.channels, Long.MIN_VALUE);
    }

    /** The task's watermark now. */
    long current() {
        return current;
    }

    /**
     * Watermark {@code watermark} arrived on {@code channel}; returns the task's new watermark if
     * it advanced, {@link Output#IDLE} if every open channel is now idle, the unchanged {@link
     * #current()} if the task was idle and is active again (its consumers must hear of it), else
     * {@link Long#MIN_VALUE}.
     *
     * <p>{@link Output#IDLE} marks {@code channel} idle: it is left out of the minimum until a real
     * watermark arrives on it.
     */
    long onWatermark(int channel, long watermark) {
        if (watermark == Output.IDLE) {
            if (idle[channel]) {
                return Long.MIN_VALUE;
            }
            idle[channel] = true;
            return advance();
        }
        idle[channel] = false;
        if (watermark > channels[channel]) {
            channels[channel] = watermark;
        }
        long advanced = advance();
        if (taskIdle) {
            taskIdle = false;
            return advanced != Long.MIN_VALUE ? advanced : current;
        }
        return advanced;
    }

    /** {@code channel} ended; returns the new watermark if that advanced it, else MIN_VALUE. */
    long onEnd(int channel) {
        ended[channel] = true;
        return advance();
    }

    private long advance() {
        long min = Long.MAX_VALUE;
        boolean open = false;
        boolean active = false;
        for (int i = 0; i < channels.length; i++) {
            if (!ended[i]) {
                open = true;
                if (!idle[i]) {
                    active = true;
                    min = Math.min(min, channels[i]);
                }
            }
        }
        if (!open) {
            return Long.MIN_VALUE; // all ended: the task's end of input emits the final one
        }
        if (!active) {
            if (taskIdle) {
                return Long.MIN_VALUE;
            }
            taskIdle = true;
            // The channels that went idle last vouched for more than the minimum: every one of
            // them is idle now, so the largest is safe (as Flink does). Without it, a channel that
            // went idle before the others caught up held the windows they had passed forever.
            long max = Long.MIN_VALUE;
            for (int i = 0; i < channels.length; i++) {
                if (!ended[i]) {
                    max = Math.max(max, channels[i]);
                }
            }
            if (max > current) {
                current = max;
                flushed = max;
            }
            return Output.IDLE;
        }
        if (min > current) {
            current = min;
            return min;
        }
        return Long.MIN_VALUE;
    }
}
