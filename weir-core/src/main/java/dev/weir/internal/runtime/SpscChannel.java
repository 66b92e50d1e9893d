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
 *
 * <p>Bounded twice: by items (batches and events) and by the estimated bytes of the records in its
 * batches ({@link RecordSizes}), since records travel by reference and a batch of large records can
 * hold far more memory than the item count suggests. A batch is refused while the batches already
 * queued and it would exceed the byte capacity, unless the channel holds no batch at all (so a
 * single batch larger than the capacity still passes, one at a time).
 */
public final class SpscChannel {
    private static final VarHandle HEAD;
    private static final VarHandle TAIL;
    private static final VarHandle BYTES;
    private static final VarHandle SPARE_HEAD;
    private static final VarHandle SPARE_TAIL;

    /** Timestamp columns waiting to be reused at most (a power of two). */
    private static final int SPARES = 16;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            HEAD = lookup.findVarHandle(SpscChannel.class, "head", long.class);
            TAIL = lookup.findVarHandle(SpscChannel.class, "tail", long.class);
            BYTES = lookup.findVarHandle(SpscChannel.class, "bytesQueued", long.class);
            SPARE_HEAD = lookup.findVarHandle(SpscChannel.class, "spareHead", long.class);
            SPARE_TAIL = lookup.findVarHandle(SpscChannel.class, "spareTail", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Object[] buffer;

    /** The estimated bytes of each slot's batch (0 for events), written before the tail moves. */
    private final long[] sizes;

    private final int mask;
    private final long capacityBytes;
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

    /** Estimated bytes of the batches queued: added by the producer, taken by the consumer. */
    @SuppressWarnings("unused")
    private volatile long bytesQueued;

    @SuppressWarnings("unused")
    private long p31, p32, p33, p34, p35, p36, p37;

    /**
     * The consumer's cost per record in nanoseconds, as it measured its last batches ({@link
     * #reportCost}); {@link #UNMEASURED} until its first batch. The producer sizes its batches and
     * the channel's fill by it ({@link #batchRecords}), so that what waits in the channel takes the
     * consumer a bounded time and a checkpoint barrier behind it is not held up for long.
     */
    private volatile long consumerNanosPerRecord = UNMEASURED;

    /** Consumer only: its own copy of {@link #consumerNanosPerRecord}, the average it keeps. */
    private long consumerAverage = UNMEASURED;

    @SuppressWarnings("unused")
    private long p51, p52, p53, p54, p55, p56, p57;

    /** Not measured yet: small batches and few of them until the consumer has a figure. */
    static final long UNMEASURED = -1;

    /** A batch should take the consumer at most this long (10 ms). */
    static final long BATCH_BUDGET_NANOS = 10_000_000L;

    /** What waits in a channel should take the consumer at most about this long (200 ms). */
    static final long QUEUE_BUDGET_NANOS = 200_000_000L;

    /** The batch size and items in flight before the consumer's first figure. */
    static final int UNMEASURED_RECORDS = 64;

    static final int UNMEASURED_ITEMS = 2;

    /**
     * Timestamp columns the consumer has read, handed back for the producer's next batches: the
     * reverse direction of the same single-producer single-consumer pair. A column holds no
     * references, so reusing it costs no GC barrier however old it gets (design 009).
     */
    private final long[][] spares = new long[SPARES][];

    /** Advanced by the producer as it takes spare columns. */
    @SuppressWarnings("unused")
    private volatile long spareHead;

    @SuppressWarnings("unused")
    private long p41, p42, p43, p44, p45, p46, p47;

    /** Advanced by the consumer as it returns columns. */
    @SuppressWarnings("unused")
    private volatile long spareTail;

    /** Creates a channel holding up to {@code capacityItems} (rounded up to a power of two). */
    public SpscChannel(String name, int capacityItems) {
        this(name, capacityItems, Long.MAX_VALUE);
    }

    /**
     * Creates a channel holding up to {@code capacityItems} (rounded up to a power of two) and up
     * to about {@code capacityBytes} of records.
     */
    public SpscChannel(String name, int capacityItems, long capacityBytes) {
        if (capacityItems < 2) {
            throw new IllegalArgumentException("channel capacity must be >= 2: " + capacityItems);
        }
        if (capacityBytes < 1) {
            throw new IllegalArgumentException("channel byte capacity must be >= 1");
        }
        int capacity = Integer.highestOneBit(capacityItems - 1) << 1;
        this.buffer = new Object[capacity];
        this.sizes = new long[capacity];
        this.mask = capacity - 1;
        this.capacityBytes = capacityBytes;
        this.name = name;
    }

    /**
     * Appends {@code item}; returns false if the channel is full (backpressure): it holds its
     * capacity, or as many items as the consumer's measured pace allows ({@link #batchRecords}).
     * Producer only.
     */
    public boolean offer(Object item) {
        long t = (long) TAIL.getOpaque(this);
        long limit = itemsFor(consumerNanosPerRecord) - 1L;
        if (t - headCache > limit) {
            headCache = (long) HEAD.getAcquire(this);
            if (t - headCache > limit) {
                return false;
            }
        }
        long bytes = 0;
        if (capacityBytes != Long.MAX_VALUE) {
            bytes = batchBytes(item);
            if (bytes > 0) {
                long queued = (long) BYTES.getAcquire(this);
                if (queued > 0 && queued + bytes > capacityBytes) {
                    return false;
                }
                BYTES.getAndAdd(this, bytes);
            }
        }
        int index = (int) t & mask;
        sizes[index] = bytes;
        buffer[index] = item;
        TAIL.setRelease(this, t + 1);
        return true;
    }

    /**
     * Producer only: how many records its next batch for this channel should hold, at most {@code
     * max}: all of them for a consumer that takes a batch of {@code max} within {@link
     * #BATCH_BUDGET_NANOS}, fewer for a slower one, down to one record for a consumer that takes
     * longer than that per record (a slow or blocking step). Together with the item limit it sets
     * in {@link #offer}, what waits in the channel takes the consumer about {@link
     * #QUEUE_BUDGET_NANOS} at most, so a barrier behind it waits about that long, not for thousands
     * of slow records (Flink calls its version of this buffer debloating).
     */
    public int batchRecords(int max) {
        return Math.min(max, recordsFor(consumerNanosPerRecord));
    }

    /** Records per batch for a consumer at {@code nanos} per record. */
    private static int recordsFor(long nanos) {
        if (nanos == UNMEASURED) {
            return UNMEASURED_RECORDS;
        }
        return (int) Math.max(1, Math.min(1 << 16, BATCH_BUDGET_NANOS / Math.max(1, nanos)));
    }

    /** Items in flight for a consumer at {@code nanos} per record, at most the capacity. */
    private int itemsFor(long nanos) {
        if (nanos == UNMEASURED) {
            return Math.min(mask + 1, UNMEASURED_ITEMS);
        }
        long items = QUEUE_BUDGET_NANOS / (Math.max(1, nanos) * recordsFor(nanos));
        return (int) Math.max(1, Math.min(mask + 1L, items));
    }

    /**
     * Consumer only: it took {@code nanos} for {@code records} records of one batch. Kept as a
     * moving average, published when it moves by more than an eighth (the producer reads it once
     * per batch).
     */
    public void reportCost(long nanos, int records) {
        if (records <= 0) {
            return;
        }
        long perRecord = Math.max(0, nanos) / records;
        long average = consumerAverage;
        long next = average == UNMEASURED ? perRecord : average - (average >> 2) + (perRecord >> 2);
        consumerAverage = next;
        long published = consumerNanosPerRecord;
        if (published == UNMEASURED || Math.abs(next - published) > (published >> 3) + 1) {
            consumerNanosPerRecord = next;
        }
    }

    /** The consumer's cost per record as last published, or -1 before its first batch. */
    public long consumerNanosPerRecord() {
        return consumerNanosPerRecord;
    }

    /** The estimated bytes of a batch's records (one record measured); 0 for an event. */
    static long batchBytes(Object item) {
        if (item instanceof Object[] batch) {
            return batch.length == 0 ? 0 : 16 + batch.length * (8 + RecordSizes.estimate(batch[0]));
        }
        if (item instanceof KeyedBatch keyed) {
            Object[] pairs = keyed.pairs();
            if (pairs.length < 2) {
                return 0;
            }
            long pair = 24 + RecordSizes.estimate(pairs[0]) + RecordSizes.estimate(pairs[1]);
            return 48 + (pairs.length / 2) * pair;
        }
        if (item instanceof TimedBatch timed) {
            return 16 + batchBytes(timed.records()) + 8L * timed.timestamps().length;
        }
        return 0;
    }

    /** Estimated bytes of the batches in the channel now (for tests and metrics). */
    public long bytesQueued() {
        return (long) BYTES.getAcquire(this);
    }

    /** Items (batches and events) in the channel now, read racily by an observer (metrics). */
    public int queuedItems() {
        long h = (long) HEAD.getAcquire(this);
        long t = (long) TAIL.getAcquire(this);
        return (int) Math.max(0, Math.min(t - h, mask + 1));
    }

    /**
     * How many items the channel holds at most now: its capacity, or fewer while its consumer's
     * pace allows fewer ({@link #batchRecords}). Read racily by an observer (metrics).
     */
    public int capacityItems() {
        return itemsFor(consumerNanosPerRecord);
    }

    /** Estimated bytes of records the channel holds before it refuses more. */
    public long capacityBytes() {
        return capacityBytes;
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
        long bytes = sizes[index];
        buffer[index] = null;
        HEAD.setRelease(this, h + 1);
        if (bytes != 0) {
            BYTES.getAndAdd(this, -bytes);
        }
        return item;
    }

    /**
     * Consumer only: hands back a batch's timestamp column once nothing reads it any more (dropped
     * when enough are waiting already).
     */
    public void recycleColumn(long[] column) {
        long t = (long) SPARE_TAIL.getOpaque(this);
        if (t - (long) SPARE_HEAD.getAcquire(this) >= SPARES) {
            return;
        }
        spares[(int) t & (SPARES - 1)] = column;
        SPARE_TAIL.setRelease(this, t + 1);
    }

    /**
     * Producer only: a timestamp column of {@code length} the consumer handed back, or a new one.
     * Its old contents are garbage; the producer overwrites what it uses.
     */
    public long[] column(int length) {
        long h = (long) SPARE_HEAD.getOpaque(this);
        if (h < (long) SPARE_TAIL.getAcquire(this)) {
            int index = (int) h & (SPARES - 1);
            long[] column = spares[index];
            spares[index] = null;
            SPARE_HEAD.setRelease(this, h + 1);
            if (column.length == length) {
                return column;
            }
        }
        return new long[length];
    }

    @Override
    public String toString() {
        return name;
    }
}
