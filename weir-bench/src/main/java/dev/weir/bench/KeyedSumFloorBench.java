package dev.weir.bench;

import dev.weir.api.state.KeyGroups;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
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

    @Option(
            names = "--shape",
            description =
                    "sum: the keyed sum; multi: the multi-stage job of keyed-sum --shape multi"
                            + " (map, filter, keyBy, running sum, keyBy, reduce), by hand (default"
                            + " ${DEFAULT-VALUE}).")
    String shape = "sum";

    /** Records per batch, as Weir's default. */
    static final int BATCH = 1024;

    /** Key groups, as Weir's default maximum parallelism. */
    static final int KEY_GROUPS = 128;

    @Override
    public Integer call() throws Exception {
        if (n < 1 || k < 1 || p < 1 || runs < 1) {
            throw new IllegalArgumentException("--n, --k, --p and --runs must be at least 1");
        }
        if (p > KEY_GROUPS) {
            throw new IllegalArgumentException(
                    "--p "
                            + p
                            + " is above the "
                            + KEY_GROUPS
                            + " key groups: a thread would own no key (Weir refuses it too)");
        }
        if (!shape.equals("sum") && !shape.equals("multi")) {
            throw new IllegalArgumentException("unknown --shape '" + shape + "'; use sum or multi");
        }
        boolean multi = shape.equals("multi");
        for (int run = 0; run < runs; run++) {
            RunResources resources = new RunResources();
            long start = System.nanoTime();
            int distinct =
                    multi ? MultiStageFloor.run(n, k, p).reduced().size() : run(n, k, p).size();
            double seconds = (System.nanoTime() - start) / 1e9;
            System.out.println(
                    String.format(
                                    Locale.ROOT,
                                    "engine=floor job=%s mode=none N=%d K=%d P=%d"
                                            + " seconds=%.3f records_per_s=%.0f keys=%d",
                                    multi ? "multi-stage" : "keyed-sum",
                                    n,
                                    k,
                                    p,
                                    seconds,
                                    n / seconds,
                                    distinct)
                            + resources.fields(n));
        }
        return 0;
    }

    /** Sums 1..{@code n} by {@code n % keys} on {@code threads} threads; returns the sums. */
    static Map<Long, Long> run(long n, long keys, int threads) throws InterruptedException {
        Ring[][] rings = rings(threads);
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
        private final int[] ownerOfGroup;
        final Map<Long, Long> sums = new HashMap<>();
        volatile Throwable failure;
        private int ended;

        Worker(int index, int threads, long n, long keys, Ring[][] rings) {
            this.index = index;
            this.threads = threads;
            this.n = n;
            this.keys = keys;
            this.rings = rings;
            this.ownerOfGroup = ownersOfGroups(threads);
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
            Outbox outbox = new Outbox(threads);
            long keys = this.keys;
            for (long value = index + 1; value <= n; value += threads) {
                Long record = value;
                Long key = record % keys;
                int to = ownerOfGroup[KeyGroups.keyGroupOf(key, KEY_GROUPS)];
                Object[] full = outbox.add(to, record, key);
                if (full != null) {
                    send(to, full);
                }
            }
            for (int to = 0; to < threads; to++) {
                Object[] rest = outbox.rest(to);
                if (rest != null) {
                    send(to, rest);
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

        private final Consumer<Object[]> summing = this::sum;

        /** Sums one batch from each input that has one; false if none had. */
        private boolean drain() {
            int ends = pollEach(rings, index, summing);
            ended += Math.max(0, ends);
            return ends >= 0;
        }

        private void sum(Object[] batch) {
            Map<Long, Long> sums = this.sums;
            for (int i = 0; i < batch.length; i += 2) {
                Long record = (Long) batch[i];
                Long key = (Long) batch[i + 1];
                Long current = sums.get(key);
                sums.put(key, (current == null ? 0 : current) + record);
            }
        }
    }

    static final Object[] END = new Object[0];

    /** One thread's batches being filled, one per target thread: pairs of record and key. */
    static final class Outbox {
        private final Object[][] batches;
        private final int[] sizes;

        Outbox(int threads) {
            batches = new Object[threads][];
            sizes = new int[threads];
        }

        /** Appends a pair to {@code to}'s batch; returns the batch if that filled it, else null. */
        Object[] add(int to, Object record, Object key) {
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
                batches[to] = null;
                sizes[to] = 0;
                return batch;
            }
            sizes[to] = size;
            return null;
        }

        /** The pairs left for {@code to}, trimmed, and none after; null if there are none. */
        Object[] rest(int to) {
            int size = sizes[to];
            if (size == 0) {
                return null;
            }
            Object[] rest = java.util.Arrays.copyOf(batches[to], size);
            batches[to] = null;
            sizes[to] = 0;
            return rest;
        }
    }

    /** The thread owning each key group, as Weir assigns key groups to {@code threads} subtasks. */
    static int[] ownersOfGroups(int threads) {
        int[] owners = new int[KEY_GROUPS];
        for (int group = 0; group < KEY_GROUPS; group++) {
            owners[group] = KeyGroups.subtaskOf(group, KEY_GROUPS, threads);
        }
        return owners;
    }

    /** The rings between {@code threads} threads, {@code [from][to]}. */
    static Ring[][] rings(int threads) {
        Ring[][] rings = new Ring[threads][threads];
        for (int from = 0; from < threads; from++) {
            for (int to = 0; to < threads; to++) {
                rings[from][to] = new Ring();
            }
        }
        return rings;
    }

    /**
     * Polls one batch from each input of thread {@code index} and hands each but {@link #END} to
     * {@code body}; returns how many inputs ended, or -1 if no input had a batch.
     */
    static int pollEach(Ring[][] rings, int index, Consumer<Object[]> body) {
        int ends = -1;
        for (Ring[] from : rings) {
            Object[] batch = from[index].poll();
            if (batch == null) {
                continue;
            }
            ends = Math.max(ends, 0);
            if (batch == END) {
                ends++;
            } else {
                body.accept(batch);
            }
        }
        return ends;
    }

    /** A bounded single-producer single-consumer ring of batches. */
    static final class Ring {
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
