package dev.weir.internal.runtime;

/**
 * The input channels of one task, read round-robin.
 *
 * <p>Tracks which channels have ended. Single-threaded: only the consuming task calls it.
 */
final class InputGate {
    private final SpscChannel[] channels;
    private final boolean[] ended;
    private final boolean[] barrierSeen;
    private boolean blockSeen;
    private int openChannels;
    private int next;
    private int lastChannel = -1;

    InputGate(SpscChannel[] channels) {
        this.channels = channels.clone();
        this.ended = new boolean[channels.length];
        this.barrierSeen = new boolean[channels.length];
        this.openChannels = channels.length;
    }

    /** Returns the next item from some open channel, or null if none has one now. */
    Object pollNext() {
        int count = channels.length;
        for (int i = 0; i < count; i++) {
            int index = next;
            next = index + 1 == count ? 0 : index + 1;
            if (ended[index] || (blockSeen && barrierSeen[index])) {
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

    /**
     * Records that the last polled channel delivered the current barrier; with {@code block} (the
     * exactly-once mode) that channel is not read again until {@link #resetBarriers}.
     */
    void markBarrierOnLastChannel(boolean block) {
        barrierSeen[lastChannel] = true;
        blockSeen = block;
    }

    /** True when every channel has delivered the current barrier or has ended. */
    boolean barrierOnAllChannels() {
        for (int i = 0; i < channels.length; i++) {
            if (!ended[i] && !barrierSeen[i]) {
                return false;
            }
        }
        return true;
    }

    /** Forgets the current barrier and unblocks every channel. */
    void resetBarriers() {
        java.util.Arrays.fill(barrierSeen, false);
        blockSeen = false;
    }
}
