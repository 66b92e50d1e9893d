package dev.weir.internal.runtime;

/**
 * The input channels of one task, read round-robin.
 *
 * <p>Tracks which channels have ended. Single-threaded: only the consuming task calls it.
 */
final class InputGate {
    private final SpscChannel[] channels;
    private final boolean[] ended;
    private int openChannels;
    private int next;
    private int lastChannel = -1;

    InputGate(SpscChannel[] channels) {
        this.channels = channels.clone();
        this.ended = new boolean[channels.length];
        this.openChannels = channels.length;
    }

    /** Returns the next item from some open channel, or null if none has one now. */
    Object pollNext() {
        int count = channels.length;
        for (int i = 0; i < count; i++) {
            int index = next;
            next = index + 1 == count ? 0 : index + 1;
            if (ended[index]) {
                continue;
            }
            Object item = channels[index].poll();
            if (item != null) {
                lastChannel = index;
                return item;
            }
        }
        return null;
    }

    /** Marks the channel of the last polled item as ended. */
    void endLastChannel() {
        if (!ended[lastChannel]) {
            ended[lastChannel] = true;
            openChannels--;
        }
    }

    boolean allEnded() {
        return openChannels == 0;
    }
}
