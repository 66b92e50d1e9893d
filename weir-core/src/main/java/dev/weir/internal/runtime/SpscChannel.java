package dev.weir.internal.runtime;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A bounded single-producer single-consumer queue of batches and control events between two tasks.
 *
 * <p>Lamport's circular buffer with release/acquire publication of the indices and cached copies of
 * the other side's index (as in JCTools' {@code SpscArrayQueue}), so each side touches the shared
 * cache lines only when its cached view runs out. Exactly one thread may call {@link #offer} and
 * exactly one (possibly another) may call {@link #poll} and {@link #peek}.
 */
public final class SpscChannel {
    private static final VarHandle HEAD;
    private static final VarHandle TAIL;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            HEAD = lookup.findVarHandle(SpscChannel.class, "head", long.class);
            TAIL = lookup.findVarHandle(SpscChannel.class, "tail", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Object[] buffer;
    private final int mask;
    private final String name;

    // Consumer-owned; padding keeps producer and consumer fields on separate cache lines.
    @SuppressWarnings("unused")
    private long p01, p02, p03, p04, p05, p06, p07;

    private volatile long head;
    private long tailCache;

    @SuppressWarnings("unused")
    private long p11, p12, p13, p14, p15, p16, p17;

    private volatile long tail;
    private long headCache;

    @SuppressWarnings("unused")
    private long p21, p22, p23, p24, p25, p26, p27;

    /** Creates a channel holding up to {@code capacityItems} (rounded up to a power of two). */
    public SpscChannel(String name, int capacityItems) {
        if (capacityItems < 2) {
            throw new IllegalArgumentException("channel capacity must be >= 2: " + capacityItems);
        }
        int capacity = Integer.highestOneBit(capacityItems - 1) << 1;
        this.buffer = new Object[capacity];
        this.mask = capacity - 1;
        this.name = name;
    }

    /** Appends {@code item}; returns false if the channel is full (backpressure). Producer only. */
    public boolean offer(Object item) {
        long t = (long) TAIL.getOpaque(this);
        if (t - headCache > mask) {
            headCache = (long) HEAD.getAcquire(this);
            if (t - headCache > mask) {
                return false;
            }
        }
        buffer[(int) t & mask] = item;
        TAIL.setRelease(this, t + 1);
        return true;
    }

    /** Removes and returns the oldest item, or null if empty. Consumer only. */
    public Object poll() {
        long h = (long) HEAD.getOpaque(this);
        if (h >= tailCache) {
            tailCache = (long) TAIL.getAcquire(this);
            if (h >= tailCache) {
                return null;
            }
        }
        int index = (int) h & mask;
        Object item = buffer[index];
        buffer[index] = null;
        HEAD.setRelease(this, h + 1);
        return item;
    }

    @Override
    public String toString() {
        return name;
    }
}
