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

    private int pendingItems;
    private int nextRoundRobin;

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

    @Override
    public void collect(Object record) {
        if (subtaskOfGroup != null) {
            collectKeyed(record);
            return;
        }
        int target = select(record);
        Object[] batch = batches[target];
        if (batch == null) {
            int capacity = channels[target].batchRecords(batchSize);
            batch = new Object[capacity];
            batches[target] = batch;
            if (time != null) {
                times[target] = channels[target].column(capacity);
            }
        }
        int size = sizes[target];
        if (time != null) {
            times[target][size] = time.timestamp;
        }
        batch[size++] = record;
        if (size == batch.length) {
            batches[target] = null;
            sizes[target] = 0;
            records += size;
            enqueue(target, time == null ? batch : new TimedBatch(batch, times[target]));
        } else {
            sizes[target] = size;
        }
    }

    /**
     * Keyed mode: the key goes into the batch beside its record (see {@link KeyedBatch}), so the
     * consumer does not extract it again.
     */
    private void collectKeyed(Object record) {
        Object key;
        try {
            key = keySelector.getKey(record);
        } catch (Exception e) {
            throw new UserCodeException("keyBy before '" + name + "'", e);
        }
        if (key == null) {
            throw new UserCodeException(
                    "keyBy before '" + name + "'",
                    new NullPointerException("key selector returned null for " + record));
        }
        if (key.getClass() != checkedKeyClass) {
            checkKey(key);
        }
        int target = subtaskOfGroup[KeyGroups.keyGroupOf(key, maxParallelism)];
        Object[] pairs = batches[target];
        if (pairs == null) {
            int capacity = channels[target].batchRecords(batchSize);
            pairs = new Object[2 * capacity];
            batches[target] = pairs;
            if (time != null) {
                times[target] = channels[target].column(capacity);
            }
        }
        int size = sizes[target];
        if (time != null) {
            times[target][size >> 1] = time.timestamp;
        }
        pairs[size] = record;
        pairs[size + 1] = key;
        size += 2;
        if (size == pairs.length) {
            batches[target] = null;
            sizes[target] = 0;
            records += size >> 1;
            enqueue(target, new KeyedBatch(pairs, time == null ? null : times[target]));
        } else {
            sizes[target] = size;
        }
    }

    /**
     * A source's timed records: on a keyed edge one loop here, with the timestamps taken from
     * {@code stamps} (the same steps as {@link #collectKeyed}, repeated on purpose: design 009,
     * rule 5); on other edges the per-record default.
     */
    @Override
    public void collectTimed(Object[] timed, long[] stamps, int from, int to, RecordTime now) {
        if (subtaskOfGroup == null || time == null) {
            Output.super.collectTimed(timed, stamps, from, to, now);
            return;
        }
        for (int i = from; i < to; i++) {
            Object record = timed[i];
            Object key;
            try {
                key = keySelector.getKey(record);
            } catch (Exception e) {
                throw new UserCodeException("keyBy before '" + name + "'", e);
            }
            if (key == null) {
                throw new UserCodeException(
                        "keyBy before '" + name + "'",
                        new NullPointerException("key selector returned null for " + record));
            }
            if (key.getClass() != checkedKeyClass) {
                checkKey(key);
            }
            int target = subtaskOfGroup[KeyGroups.keyGroupOf(key, maxParallelism)];
            Object[] pairs = batches[target];
            if (pairs == null) {
                int capacity = channels[target].batchRecords(batchSize);
                pairs = new Object[2 * capacity];
                batches[target] = pairs;
                times[target] = channels[target].column(capacity);
            }
            int size = sizes[target];
            times[target][size >> 1] = stamps[i];
            pairs[size] = record;
            pairs[size + 1] = key;
            size += 2;
            if (size == pairs.length) {
                batches[target] = null;
                sizes[target] = 0;
                records += size >> 1;
                enqueue(target, new KeyedBatch(pairs, times[target]));
            } else {
                sizes[target] = size;
            }
        }
        if (to > from) {
            now.timestamp = stamps[to - 1];
        }
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
        broadcastEvent(new ControlEvent.Watermark(watermark));
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
