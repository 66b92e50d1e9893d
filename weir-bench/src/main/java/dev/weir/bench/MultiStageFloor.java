package dev.weir.bench;

import dev.weir.api.state.KeyGroups;
import dev.weir.bench.KeyedSumFloorBench.Outbox;
import dev.weir.bench.KeyedSumFloorBench.Ring;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The multi-stage job written by hand, with no engine: {@code keyed-sum-floor --shape multi}.
 *
 * <p>Each thread reads one stripe of 1..N, maps {@code n * 3}, drops multiples of 5, and sends each
 * survivor with its key {@code n % K} to the thread owning the key's group (the first shuffle).
 * There it adds it to its key's running sum, boxed into a {@link HashMap}, and sends the new sum
 * with its key {@code sum % K} on (the second shuffle) to a rolling {@code +} per key in a second
 * map. The user work of {@code keyed-sum --shape multi}, in the same batches of 1,024 through
 * single-producer single-consumer rings; no checkpoints, no guarantee, no output.
 */
final class MultiStageFloor {
    private MultiStageFloor() {}

    /** What the threads computed: the running sums, the reduced values, and how many reduced. */
    record Result(Map<Long, Long> sums, Map<Long, Long> reduced, long reducedRecords) {}

    static Result run(long n, long keys, int threads) throws InterruptedException {
        Ring[][] first = KeyedSumFloorBench.rings(threads);
        Ring[][] second = KeyedSumFloorBench.rings(threads);
        Worker[] workers = new Worker[threads];
        Thread[] running = new Thread[threads];
        for (int i = 0; i < threads; i++) {
            workers[i] = new Worker(i, threads, n, keys, first, second);
            running[i] = new Thread(workers[i], "floor-" + i);
            running[i].start();
        }
        Map<Long, Long> sums = new HashMap<>();
        Map<Long, Long> reduced = new HashMap<>();
        long reducedRecords = 0;
        for (int i = 0; i < threads; i++) {
            running[i].join();
            if (workers[i].failure != null) {
                throw new IllegalStateException("floor thread failed", workers[i].failure);
            }
            sums.putAll(workers[i].sums);
            reduced.putAll(workers[i].reduced);
            reducedRecords += workers[i].reducedRecords;
        }
        return new Result(sums, reduced, reducedRecords);
    }

    /** One thread: its stripe, and the keys it owns in both keyed stages. */
    private static final class Worker implements Runnable {
        private static final int GROUPS = KeyedSumFloorBench.KEY_GROUPS;
        private static final Object[] END = KeyedSumFloorBench.END;

        private final int index;
        private final int threads;
        private final long n;
        private final long keys;
        private final Ring[][] first;
        private final Ring[][] second;
        private final int[] ownerOfGroup;

        /** The second shuffle's batches being filled by this thread's running sums. */
        private final Outbox sumsOut;

        final Map<Long, Long> sums = new HashMap<>();
        final Map<Long, Long> reduced = new HashMap<>();
        long reducedRecords;
        volatile Throwable failure;
        private int firstEnded;
        private int secondEnded;

        Worker(int index, int threads, long n, long keys, Ring[][] first, Ring[][] second) {
            this.index = index;
            this.threads = threads;
            this.n = n;
            this.keys = keys;
            this.first = first;
            this.second = second;
            this.sumsOut = new Outbox(threads);
            this.ownerOfGroup = KeyedSumFloorBench.ownersOfGroups(threads);
        }

        @Override
        public void run() {
            try {
                produce();
                for (int to = 0; to < threads; to++) {
                    sendFirst(to, END);
                }
                while (firstEnded < threads) {
                    if (!drainFirst() & !drainSecond()) {
                        Thread.onSpinWait();
                    }
                }
                for (int to = 0; to < threads; to++) {
                    Object[] rest = sumsOut.rest(to);
                    if (rest != null) {
                        sendSecond(to, rest);
                    }
                    sendSecond(to, END);
                }
                while (secondEnded < threads) {
                    if (!drainSecond()) {
                        Thread.onSpinWait();
                    }
                }
            } catch (Throwable e) {
                failure = e;
            }
        }

        /** Reads the stripe: map, filter, and the first shuffle. */
        private void produce() {
            Outbox outbox = new Outbox(threads);
            long keys = this.keys;
            for (long value = index + 1; value <= n; value += threads) {
                Long record = value;
                Long mapped = record * 3;
                if (mapped % 5 == 0) {
                    continue;
                }
                Long key = mapped % keys;
                int to = ownerOfGroup[KeyGroups.keyGroupOf(key, GROUPS)];
                Object[] full = outbox.add(to, mapped, key);
                if (full != null) {
                    sendFirst(to, full);
                }
            }
            for (int to = 0; to < threads; to++) {
                Object[] rest = outbox.rest(to);
                if (rest != null) {
                    sendFirst(to, rest);
                }
            }
        }

        /** Sends into the first shuffle, draining both stages' inputs while the ring is full. */
        private void sendFirst(int to, Object[] batch) {
            Ring ring = first[index][to];
            while (!ring.offer(batch)) {
                if (!drainFirst() & !drainSecond()) {
                    Thread.onSpinWait();
                }
            }
        }

        /**
         * Sends into the second shuffle, draining only the second stage's inputs while the ring is
         * full: the second stage sends nothing, so it always makes progress.
         */
        private void sendSecond(int to, Object[] batch) {
            Ring ring = second[index][to];
            while (!ring.offer(batch)) {
                if (!drainSecond()) {
                    Thread.onSpinWait();
                }
            }
        }

        private final Consumer<Object[]> summing = this::sum;
        private final Consumer<Object[]> reducing = this::reduce;

        /** The running sums of one batch from each input that has one; false if none had. */
        private boolean drainFirst() {
            int ends = KeyedSumFloorBench.pollEach(first, index, summing);
            firstEnded += Math.max(0, ends);
            return ends >= 0;
        }

        private void sum(Object[] batch) {
            Map<Long, Long> sums = this.sums;
            long keys = this.keys;
            for (int i = 0; i < batch.length; i += 2) {
                Long record = (Long) batch[i];
                Long key = (Long) batch[i + 1];
                Long current = sums.get(key);
                Long next = (current == null ? 0 : current) + record;
                sums.put(key, next);
                emitSum(next, next % keys);
            }
        }

        private void emitSum(Long sum, Long key) {
            int to = ownerOfGroup[KeyGroups.keyGroupOf(key, GROUPS)];
            Object[] full = sumsOut.add(to, sum, key);
            if (full != null) {
                sendSecond(to, full);
            }
        }

        /** The rolling {@code +} of one batch from each input that has one; false if none had. */
        private boolean drainSecond() {
            int ends = KeyedSumFloorBench.pollEach(second, index, reducing);
            secondEnded += Math.max(0, ends);
            return ends >= 0;
        }

        private void reduce(Object[] batch) {
            Map<Long, Long> reduced = this.reduced;
            for (int i = 0; i < batch.length; i += 2) {
                Long sum = (Long) batch[i];
                Long key = (Long) batch[i + 1];
                Long current = reduced.get(key);
                reduced.put(key, current == null ? sum : current + sum);
            }
            reducedRecords += batch.length / 2;
        }
    }
}
