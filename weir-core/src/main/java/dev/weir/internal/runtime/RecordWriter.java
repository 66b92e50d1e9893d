package dev.weir.internal.runtime;

import dev.weir.api.function.KeySelector;
import dev.weir.api.state.KeyGroups;
import dev.weir.internal.graph.EdgeMode;
import dev.weir.internal.operators.Output;
import dev.weir.internal.operators.RecordTime;
import dev.weir.internal.operators.UserCodeException;
import java.util.ArrayDeque;
import java.util.Arrays;

/**
 * Partitions one operator's output over the channels of one downstream edge, in batches.
 *
 * <p>Records are appended to a per-target array; a full array is sealed and offered to the target's
 * channel. What a full channel refuses waits in a per-target pending queue, and the task takes no
 * new input until {@link #drain} has emptied it: so a task holds at most what one input batch
 * produces, and a slow consumer stops its producers (backpressure) instead of growing memory.
 * Single-threaded: used only by the producing task.
 *
 * <p>On an edge that carries event time, each record's timestamp ({@link RecordTime}) goes into a
 * {@code long[]} column beside the records; a pipeline that uses no event time builds no column.
 */
public final class RecordWriter implements Output {

    private final String name;
    private final EdgeMode mode;
    private final KeySelector<Object, Object> keySelector;
    private final int maxParallelism;
    private final int batchSize;
    private final SpscChannel[] channels;
    private final Object[][] batches;
    private final int[] sizes;

    /** The producing task's current record time, or null if this edge carries no time. */
    private final RecordTime time;

    /** Per target, the timestamp column of the batch being built (with {@link #time}). */
    private final long[][] times;

    private final ArrayDeque<Object>[] pending;

    /** Keyed mode: the owning subtask of each key group, looked up instead of divided. */
    private final int[] subtaskOfGroup;

    /** Records sealed into batches so far (metrics): counted per batch, read racily. */
    private long records;

    /**
     * With event time at the source: the split being polled, which stamps each record this writer
     * takes ({@link SourceDriver}); null otherwise (records carry the task's {@link #time}).
     */
    private RecordStamper stamper;

    private int pendingItems;
    private int nextRoundRobin;

    /** The last watermark sent ({@link Long#MIN_VALUE}: none yet); read by source alignment. */
    private long lastWatermark = Long.MIN_VALUE;

    /** Keyed mode: the last key class {@link KeyGroups#checkKey} accepted. */
    private Class<?> checkedKeyClass;

    /**
     * Creates a writer to {@code channels}, indexed by target subtask (a single channel for {@link
     * Mode#POINTWISE}).
     */
    @SuppressWarnings("unchecked")
    public RecordWriter(
            String name,
            EdgeMode mode,
            KeySelector<Object, Object> keySelector,
            int maxParallelism,
            int batchSize,
            SpscChannel[] channels,
            RecordTime time) {
        this.name = name;
        this.time = time;
        this.times = time == null ? null : new long[channels.length][];
        this.mode = mode;
        this.keySelector = keySelector;
        this.maxParallelism = maxParallelism;
        this.batchSize = batchSize;
        this.channels = channels.clone();
        this.batches = new Object[channels.length][];
        this.sizes = new int[channels.length];
        this.pending = (ArrayDeque<Object>[]) new ArrayDeque<?>[channels.length];
        for (int i = 0; i < channels.length; i++) {
            pending[i] = new ArrayDeque<>();
        }
        if (mode == EdgeMode.KEYED) {
            subtaskOfGroup = new int[maxParallelism];
            for (int group = 0; group < maxParallelism; group++) {
                subtaskOfGroup[group] = KeyGroups.subtaskOf(group, maxParallelism, channels.length);
            }
        } else {
            subtaskOfGroup = null;
        }
    }

    /** True if this writer's edge carries event time (a timestamp column beside the records). */
    boolean carriesTime() {
        return time != null;
    }

    /**
     * Has {@code stamper} give each record this writer takes its timestamp, until called again with
     * null: a source's split while it is polled, so the reader's records reach the batch with no
     * step in between (design 009, rule 5). Only on a writer that {@linkplain #carriesTime carries
     * time}.
     */
    void stampWith(RecordStamper stamper) {
        this.stamper = stamper;
    }

    /**
     * Takes one record. The per-record methods keep their cold parts (errors, a new batch, a full
     * one) in methods of their own, so each stays small enough for the JIT to inline it into the
     * reader's or operator's loop (design 009, rule 5).
     */
    @Override
    public void collect(Object record) {
        if (subtaskOfGroup != null) {
            collectKeyed(record);
        } else {
            collectUnkeyed(record);
        }
    }

    private void collectUnkeyed(Object record) {
        // First: stamping may emit a watermark, which flushes the batches.
        long timestamp = RecordTime.NONE;
        RecordStamper stamper = null;
        if (time != null) {
            stamper = this.stamper;
            timestamp = stamper == null ? time.timestamp : stamper.stamp(record);
        }
        int target = select(record);
        Object[] batch = batches[target];
        if (batch == null) {
            batch = newBatch(target, 1);
        }
        int size = sizes[target];
        if (time != null) {
            times[target][size] = timestamp;
        }
        batch[size++] = record;
        if (size == batch.length) {
            seal(target, size);
        } else {
            sizes[target] = size;
        }
        if (stamper != null && stamper.raised) {
            stamper.emitRaised(); // the record is in its batch: its watermark follows it
        }
    }

    /**
     * Keyed mode: the key goes into the batch beside its record (see {@link KeyedBatch}), so the
     * consumer does not extract it again.
     */
    private void collectKeyed(Object record) {
        // First: stamping may emit a watermark, which flushes the batches.
        long timestamp = RecordTime.NONE;
        RecordStamper stamper = null;
        if (time != null) {
            stamper = this.stamper;
            timestamp = stamper == null ? time.timestamp : stamper.stamp(record);
        }
        Object key;
        try {
            key = keySelector.getKey(record);
        } catch (Exception e) {
            throw keyFailed(e);
        }
        if (key == null) {
            throw nullKey(record);
        }
        if (key.getClass() != checkedKeyClass) {
            checkKey(key);
        }
        int target = subtaskOfGroup[KeyGroups.keyGroupOf(key, maxParallelism)];
        Object[] pairs = batches[target];
        if (pairs == null) {
            pairs = newBatch(target, 2);
        }
        int size = sizes[target];
        if (time != null) {
            times[target][size >> 1] = timestamp;
        }
        pairs[size] = record;
        pairs[size + 1] = key;
        size += 2;
        if (size == pairs.length) {
            seal(target, size);
        } else {
            sizes[target] = size;
        }
        if (stamper != null && stamper.raised) {
            stamper.emitRaised(); // the record is in its batch: its watermark follows it
        }
    }

    /**
     * Starts {@code target}'s next batch, sized by its consumer's pace, with {@code slots} array
     * slots per record (2 when the key travels beside it), and its timestamp column if the edge
     * carries time.
     */
    private Object[] newBatch(int target, int slots) {
        int capacity = channels[target].batchRecords(batchSize);
        Object[] batch = new Object[slots * capacity];
        batches[target] = batch;
        if (time != null) {
            times[target] = channels[target].column(capacity);
        }
        return batch;
    }

    /** Sends {@code target}'s full batch of {@code size} slots. */
    private void seal(int target, int size) {
        Object[] batch = batches[target];
        batches[target] = null;
        sizes[target] = 0;
        long[] stamps = time == null ? null : times[target];
        if (subtaskOfGroup != null) {
            records += size >> 1;
            enqueue(target, new KeyedBatch(batch, stamps));
        } else {
            records += size;
            enqueue(target, stamps == null ? batch : new TimedBatch(batch, stamps));
        }
    }

    private UserCodeException keyFailed(Exception e) {
        return new UserCodeException("keyBy before '" + name + "'", e);
    }

    private UserCodeException nullKey(Object record) {
        return new UserCodeException(
                "keyBy before '" + name + "'",
                new NullPointerException("key selector returned null for " + record));
    }

    /**
     * Records that give each target about one batch of the size its consumer's pace allows ({@link
     * SpscChannel#batchRecords}); {@code batchSize} per target for consumers that keep up.
     */
    int pacedRecords() {
        long sum = 0;
        for (SpscChannel channel : channels) {
            sum += channel.batchRecords(batchSize);
        }
        return (int) Math.min(Integer.MAX_VALUE, sum);
    }

    /** Refuses a key that could not be checkpointed and restored, at the first such record. */
    private void checkKey(Object key) {
        try {
            KeyGroups.checkKey(key);
        } catch (IllegalArgumentException e) {
            throw new dev.weir.api.UnrecoverableException(
                    "the keyBy before step '"
                            + name
                            + "' returned a key it cannot keep: "
                            + e.getMessage(),
                    e);
        }
        checkedKeyClass = key.getClass();
    }

    private int select(Object record) {
        if (mode == EdgeMode.POINTWISE) {
            return 0;
        }
        int target = nextRoundRobin;
        nextRoundRobin = target + 1 == channels.length ? 0 : target + 1;
        return target;
    }

    /** Seals partly filled batches so they can be sent. */
    public void flush() {
        for (int target = 0; target < channels.length; target++) {
            int size = sizes[target];
            if (size > 0) {
                sizes[target] = 0;
                Object[] sealed = Arrays.copyOf(batches[target], size);
                long[] stamps =
                        time == null
                                ? null
                                : Arrays.copyOf(
                                        times[target], subtaskOfGroup != null ? size >> 1 : size);
                records += subtaskOfGroup != null ? size >> 1 : size;
                Object item;
                if (subtaskOfGroup != null) {
                    item = new KeyedBatch(sealed, stamps);
                } else {
                    item = stamps == null ? sealed : new TimedBatch(sealed, stamps);
                }
                enqueue(target, item);
            }
        }
    }

    /** Sends {@code watermark} to every target, after the records written before it. */
    @Override
    public void emitWatermark(long watermark) {
        lastWatermark = watermark;
        broadcastEvent(new ControlEvent.Watermark(watermark));
    }

    /**
     * The last watermark sent to the targets: {@link Long#MIN_VALUE} if none, {@link Output#IDLE}
     * if the output is idle. On the task's thread.
     */
    long lastWatermark() {
        return lastWatermark;
    }

    /** Flushes, then queues {@code event} for every target, after all records already written. */
    public void broadcastEvent(ControlEvent event) {
        flush();
        for (int target = 0; target < channels.length; target++) {
            enqueue(target, event);
        }
    }

    private void enqueue(int target, Object item) {
        ArrayDeque<Object> queue = pending[target];
        if (queue.isEmpty() && channels[target].offer(item)) {
            return;
        }
        queue.addLast(item);
        pendingItems++;
    }

    /**
     * Offers pending items to their channels; returns how many were sent. The writer is clear when
     * {@link #hasPending()} is false.
     */
    public int drain() {
        if (pendingItems == 0) {
            return 0;
        }
        int sent = 0;
        for (int target = 0; target < channels.length; target++) {
            ArrayDeque<Object> queue = pending[target];
            SpscChannel channel = channels[target];
            while (!queue.isEmpty() && channel.offer(queue.peekFirst())) {
                queue.pollFirst();
                sent++;
            }
        }
        pendingItems -= sent;
        return sent;
    }

    /** Records sealed into batches so far; read racily by metrics on any thread. */
    public long records() {
        return records;
    }

    /** True while some sealed batch or event waits for room in its channel. */
    public boolean hasPending() {
        return pendingItems > 0;
    }

    @Override
    public String toString() {
        return "RecordWriter(" + name + ", " + mode + ", " + channels.length + " targets)";
    }
}
