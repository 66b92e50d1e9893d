package dev.weir.internal.runtime;

/**
 * The input channels of one task, read round-robin, skipping ended channels and those the barrier
 * alignment holds back.
 *
 * <p>Single-threaded: only the consuming task calls it.
 */
final class InputGate {
    private final SpscChannel[] channels;
    private final boolean[] ended;
    private BarrierAlignment alignment;
    private int openChannels;
    private int next;
    private int lastChannel = -1;

    InputGate(SpscChannel[] channels) {
        this.channels = channels.clone();
        this.ended = new boolean[channels.length];
        this.openChannels = channels.length;
    }

    int channelCount() {
        return channels.length;
    }

    /** Lets {@code alignment} hold back the channels that delivered the barrier it aligns. */
    void alignWith(BarrierAlignment alignment) {
        this.alignment = alignment;
    }

    /** Returns the next item from some open channel, or null if none has one now. */
    Object pollNext() {
        int count = channels.length;
        for (int i = 0; i < count; i++) {
            int index = next;
            next = index + 1 == count ? 0 : index + 1;
            if (ended[index] || (alignment != null && alignment.isBlocked(index))) {
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

    /** Hands a batch's timestamp column back to the channel of the last item polled. */
    void recycleColumn(long[] column) {
        channels[lastChannel].recycleColumn(column);
    }

    /** Tells input {@code channel} how long a batch of {@code records} from it took. */
    void reportCost(int channel, long nanos, int records) {
        channels[channel].reportCost(nanos, records);
    }

    /** The channel of the last item {@link #pollNext} returned. */
    int lastChannel() {
        return lastChannel;
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
