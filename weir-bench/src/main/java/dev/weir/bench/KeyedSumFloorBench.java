package dev.weir.bench;

import dev.weir.api.state.KeyGroups;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The keyed sum written by hand, with no engine: the yardstick for what an engine adds per record.
 *
 * <p>{@code --p} threads each read one stripe of 1..N (as the sequence source's splits do) and own
 * one part of the keys (as the keyed subtasks do). Each record does the user work of {@code
 * keyed-sum}: a boxed {@code Long}, its key {@code n % K}, routed by the same key groups, and a
 * running sum per key boxed into a {@link HashMap}. Records travel between the threads in batches
 * of 1,024 through single-producer single-consumer rings, and a thread that can send nothing drains
 * what was sent to it. No checkpoints, no guarantee, no output: the floor of the work, not of the
 * promise. Over Flink's records/s it is the largest Weir/Flink ratio the keyed sum can show.
 */
@Command(
        name = "keyed-sum-floor",
        description =
                "Runs the keyed sum written by hand on threads, with no engine: the floor of its"
                        + " cost per record.")
public final class KeyedSumFloorBench implements Callable<Integer> {
    @Option(names = "--n", description = "Records (default ${DEFAULT-VALUE}).")
    long n = 50_000_000L;

    @Option(names = "--k", description = "Distinct keys (default ${DEFAULT-VALUE}).")
    long k = 2;

    @Option(names = "--p", description = "Threads (default ${DEFAULT-VALUE}).")
    int p = 2;

    @Option(names = "--runs", description = "Runs in this JVM (default ${DEFAULT-VALUE}).")
    int runs = 1;

    /** Records per batch, as Weir's default. */
    static final int BATCH = 1024;

    /** Key groups, as Weir's default maximum parallelism. */
    static final int KEY_GROUPS = 128;

    @Override
    public Integer call() throws Exception {
        if (n < 1 || k < 1 || p < 1 || runs < 1) {
            throw new IllegalArgumentException("--n, --k, --p and --runs must be at least 1");
        }
        for (int run = 0; run < runs; run++) {
            RunResources resources = new RunResources();
            long start = System.nanoTime();
            Map<Long, Long> sums = run(n, k, p);
            double seconds = (System.nanoTime() - start) / 1e9;
            System.out.println(
                    String.format(
                                    Locale.ROOT,
                                    "engine=floor job=keyed-sum mode=none N=%d K=%d P=%d"
                                            + " seconds=%.3f records_per_s=%.0f keys=%d",
                                    n,
                                    k,
                                    p,
                                    seconds,
                                    n / seconds,
                                    sums.size())
                            + resources.fields(n));
        }
        return 0;
    }

    /** Sums 1..{@code n} by {@code n % keys} on {@code threads} threads; returns the sums. */
    static Map<Long, Long> run(long n, long keys, int threads) throws InterruptedException {
        Ring[][] rings = new Ring[threads][threads]; // [from][to]
        for (int from = 0; from < threads; from++) {
            for (int to = 0; to < threads; to++) {
                rings[from][to] = new Ring();
            }
        }
        Worker[] workers = new Worker[threads];
        Thread[] running = new Thread[threads];
        for (int i = 0; i < threads; i++) {
            workers[i] = new Worker(i, threads, n, keys, rings);
            running[i] = new Thread(workers[i], "floor-" + i);
            running[i].start();
        }
        Map<Long, Long> all = new HashMap<>();
        for (int i = 0; i < threads; i++) {
            running[i].join();
            if (workers[i].failure != null) {
                throw new IllegalStateException("floor thread failed", workers[i].failure);
            }
            all.putAll(workers[i].sums);
        }
        return all;
    }

    /** One thread: the stripe it reads, and the keys it owns. */
    private static final class Worker implements Runnable {
        private final int index;
        private final int threads;
        private final long n;
        private final long keys;
        private final Ring[][] rings;
        private final int[] ownerOfGroup = new int[KEY_GROUPS];
        final Map<Long, Long> sums = new HashMap<>();
        volatile Throwable failure;
        private int ended;

        Worker(int index, int threads, long n, long keys, Ring[][] rings) {
            this.index = index;
            this.threads = threads;
            this.n = n;
            this.keys = keys;
            this.rings = rings;
            for (int group = 0; group < KEY_GROUPS; group++) {
                ownerOfGroup[group] = KeyGroups.subtaskOf(group, KEY_GROUPS, threads);
            }
        }

        @Override
        public void run() {
            try {
                produce();
                for (int to = 0; to < threads; to++) {
                    send(to, END);
                }
                while (ended < threads) {
                    if (!drain()) {
                        Thread.onSpinWait();
                    }
                }
            } catch (Throwable e) {
                failure = e;
            }
        }

        private void produce() {
            Object[][] batches = new Object[threads][];
            int[] sizes = new int[threads];
            long keys = this.keys;
            for (long value = index + 1; value <= n; value += threads) {
                Long record = value;
                Long key = record % keys;
                int to = ownerOfGroup[KeyGroups.keyGroupOf(key, KEY_GROUPS)];
                Object[] batch = batches[to];
                if (batch == null) {
                    batch = new Object[2 * BATCH];
                    batches[to] = batch;
                }
                int size = sizes[to];
                batch[size] = record;
                batch[size + 1] = key;
                size += 2;
                if (size == batch.length) {
                    send(to, batch);
                    batches[to] = null;
                    size = 0;
                }
                sizes[to] = size;
            }
            for (int to = 0; to < threads; to++) {
                if (sizes[to] > 0) {
                    send(to, java.util.Arrays.copyOf(batches[to], sizes[to]));
                }
            }
        }

        /** Sends a batch, draining this thread's own inputs while the ring is full. */
        private void send(int to, Object[] batch) {
            Ring ring = rings[index][to];
            while (!ring.offer(batch)) {
                if (!drain()) {
                    Thread.onSpinWait();
                }
            }
        }

        /** Sums one batch from each input that has one; false if none had. */
        private boolean drain() {
            boolean any = false;
            for (int from = 0; from < threads; from++) {
                Object[] batch = rings[from][index].poll();
                if (batch == null) {
                    continue;
                }
                any = true;
                if (batch == END) {
                    ended++;
                    continue;
                }
                Map<Long, Long> sums = this.sums;
                for (int i = 0; i < batch.length; i += 2) {
                    Long record = (Long) batch[i];
                    Long key = (Long) batch[i + 1];
                    Long current = sums.get(key);
                    sums.put(key, (current == null ? 0 : current) + record);
                }
            }
            return any;
        }
    }

    private static final Object[] END = new Object[0];

    /** A bounded single-producer single-consumer ring of batches. */
    private static final class Ring {
        private final Object[][] slots = new Object[64][];
        private final AtomicLong head = new AtomicLong();
        private final AtomicLong tail = new AtomicLong();

        boolean offer(Object[] batch) {
            long t = tail.get();
            if (t - head.get() >= slots.length) {
                return false;
            }
            slots[(int) t & (slots.length - 1)] = batch;
            tail.lazySet(t + 1);
            return true;
        }

        Object[] poll() {
            long h = head.get();
            if (h >= tail.get()) {
                return null;
            }
            int slot = (int) h & (slots.length - 1);
            Object[] batch = slots[slot];
            slots[slot] = null;
            head.lazySet(h + 1);
            return batch;
        }
    }
}
