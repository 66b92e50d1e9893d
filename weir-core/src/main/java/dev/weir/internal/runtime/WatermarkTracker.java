package dev.weir.internal.runtime;

import java.util.Arrays;

/**
 * The watermark of a task with several input channels: the minimum over the channels that have not
 * ended, which only ever grows (a channel's own watermark never goes back either). Single-threaded:
 * the task's.
 */
final class WatermarkTracker {
    private final long[] channels;
    private final boolean[] ended;
    private long current = Long.MIN_VALUE;

    WatermarkTracker(int channels) {
        this.channels = new long[channels];
        this.ended = new boolean[channels];
        Arrays.fill(this.channels, Long.MIN_VALUE);
    }

    /** The task's watermark now. */
    long current() {
        return current;
    }

    /**
     * Watermark {@code watermark} arrived on {@code channel}; returns the task's new watermark if
     * it advanced, else {@link Long#MIN_VALUE}.
     */
    long onWatermark(int channel, long watermark) {
        if (watermark > channels[channel]) {
            channels[channel] = watermark;
            return advance();
        }
        return Long.MIN_VALUE;
    }

    /** {@code channel} ended; returns the new watermark if that advanced it, else MIN_VALUE. */
    long onEnd(int channel) {
        ended[channel] = true;
        return advance();
    }

    private long advance() {
        long min = Long.MAX_VALUE;
        boolean open = false;
        for (int i = 0; i < channels.length; i++) {
            if (!ended[i]) {
                open = true;
                min = Math.min(min, channels[i]);
            }
        }
        if (!open) {
            return Long.MIN_VALUE; // all ended: the task's end of input emits the final one
        }
        if (min > current) {
            current = min;
            return min;
        }
        return Long.MIN_VALUE;
    }
}
