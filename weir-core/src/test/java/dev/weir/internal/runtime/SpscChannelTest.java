package dev.weir.internal.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SpscChannelTest {
    @Test
    void refusesWhenFullAndDeliversInOrder() {
        SpscChannel channel = new SpscChannel("c", 4);
        channel.reportCost(0, 1); // a consumer that keeps up: the channel's capacity applies
        for (int i = 0; i < 4; i++) {
            assertThat(channel.offer(i)).isTrue();
        }
        assertThat(channel.offer(4)).isFalse();
        assertThat(channel.poll()).isEqualTo(0);
        assertThat(channel.offer(4)).isTrue();
        for (int i = 1; i <= 4; i++) {
            assertThat(channel.poll()).isEqualTo(i);
        }
        assertThat(channel.poll()).isNull();
    }

    @Test
    void aProducerAndAConsumerThreadPassEveryItemOnceInOrder() throws Exception {
        SpscChannel channel = new SpscChannel("c", 8);
        int count = 1_000_000;
        Thread producer =
                new Thread(
                        () -> {
                            for (int i = 0; i < count; i++) {
                                while (!channel.offer(i)) {
                                    Thread.onSpinWait();
                                }
                            }
                        });
        producer.start();
        for (int expected = 0; expected < count; ) {
            Object item = channel.poll();
            if (item == null) {
                Thread.onSpinWait();
                continue;
            }
            assertThat(item).isEqualTo(expected);
            expected++;
        }
        producer.join();
        assertThat(channel.poll()).isNull();
    }

    @Test
    void aSlowConsumerGetsSmallBatchesAndFewOfThemSoWhatWaitsTakesItAboutTheQueueBudget() {
        SpscChannel channel = new SpscChannel("c", 64);
        // Before the consumer's first batch: small batches, two in flight.
        assertThat(channel.batchRecords(1024)).isEqualTo(SpscChannel.UNMEASURED_RECORDS);
        assertThat(channel.offer(1)).isTrue();
        assertThat(channel.offer(2)).isTrue();
        assertThat(channel.offer(3)).isFalse();
        channel.poll();
        channel.poll();

        // 2 ms per record: 5 records per batch (10 ms), 20 batches in flight (200 ms).
        channel.reportCost(10_000_000, 5);
        assertThat(channel.consumerNanosPerRecord()).isEqualTo(2_000_000);
        assertThat(channel.batchRecords(1024)).isEqualTo(5);
        int accepted = 0;
        while (channel.offer(accepted)) {
            accepted++;
        }
        assertThat(accepted).isEqualTo(20);
        assertThat(channel.capacityItems()).as("the capacity metrics report").isEqualTo(20);

        // Slower than the batch budget per record: one record per batch, one batch in flight.
        for (int i = 0; i < 30; i++) {
            channel.reportCost(400_000_000, 1);
        }
        assertThat(channel.batchRecords(1024)).isEqualTo(1);
        while (channel.poll() != null) {
            // drain
        }
        assertThat(channel.offer("a")).isTrue();
        assertThat(channel.offer("b")).isFalse();

        // Fast again: the average follows within a few batches, back to full batches.
        channel.poll();
        for (int i = 0; i < 60; i++) {
            channel.reportCost(20_000, 1024);
        }
        assertThat(channel.batchRecords(1024)).isEqualTo(1024);
        for (int i = 0; i < 64; i++) {
            assertThat(channel.offer(i)).isTrue();
        }
        assertThat(channel.offer(64)).isFalse();
    }

    static Object[] batchOf(int records, int chars) {
        Object[] batch = new Object[records];
        for (int i = 0; i < records; i++) {
            batch[i] = "r".repeat(chars);
        }
        return batch;
    }

    @Test
    void refusesBatchesBeyondItsByteCapacityButAlwaysTakesOneAndNeverRefusesForEvents() {
        long perBatch = SpscChannel.batchBytes(batchOf(100, 1000));
        assertThat(perBatch).isGreaterThan(100L * 2000);
        SpscChannel channel = new SpscChannel("c", 64, 3 * perBatch);
        channel.reportCost(0, 1);
        for (int i = 0; i < 3; i++) {
            assertThat(channel.offer(batchOf(100, 1000))).as("batch %d", i).isTrue();
        }
        assertThat(channel.offer(batchOf(100, 1000))).as("a fourth batch").isFalse();
        assertThat(channel.offer(ControlEvent.EndOfInput.INSTANCE)).as("an event").isTrue();
        assertThat(channel.bytesQueued()).isEqualTo(3 * perBatch);
        channel.poll();
        assertThat(channel.bytesQueued()).isEqualTo(2 * perBatch);
        assertThat(channel.offer(batchOf(100, 1000))).isTrue();
        while (channel.poll() != null) {
            // drain
        }
        assertThat(channel.bytesQueued()).isZero();
        // A batch larger than the whole capacity still passes, alone.
        assertThat(channel.offer(batchOf(1000, 1000))).isTrue();
        assertThat(channel.offer(batchOf(1, 1))).isFalse();
    }

    @Test
    void keyedBatchesCountTheirKeysToo() {
        Object[] pairs = {"a".repeat(500), 1L, "b".repeat(500), 2L};
        assertThat(SpscChannel.batchBytes(new KeyedBatch(pairs, null)))
                .isGreaterThan(
                        SpscChannel.batchBytes(new Object[] {"a".repeat(500), "b".repeat(500)}));
    }

    @Test
    void timestampColumnsComeBackToTheProducerOnlyAtTheirLength() {
        SpscChannel channel = new SpscChannel("c", 4);
        long[] first = channel.column(8);
        assertThat(first).hasSize(8);
        channel.recycleColumn(first);
        assertThat(channel.column(8)).isSameAs(first);
        // Taken once: the next is new.
        assertThat(channel.column(8)).isNotSameAs(first);
        // A partial batch's shorter column is dropped, not handed out as a full one.
        channel.recycleColumn(new long[3]);
        assertThat(channel.column(8)).hasSize(8);
        // At most 16 wait; more are dropped, and the 16 come back in order.
        long[][] returned = new long[20][];
        for (int i = 0; i < returned.length; i++) {
            returned[i] = new long[8];
            channel.recycleColumn(returned[i]);
        }
        for (int i = 0; i < 16; i++) {
            assertThat(channel.column(8)).isSameAs(returned[i]);
        }
        long[] fresh = channel.column(8);
        for (long[] column : returned) {
            assertThat(fresh).isNotSameAs(column);
        }
    }

    @Test
    void aColumnRecycledOnOneThreadIsSeenWhole() throws Exception {
        SpscChannel channel = new SpscChannel("c", 8);
        int batches = 20_000;
        Thread producer =
                new Thread(
                        () -> {
                            for (int b = 0; b < batches; b++) {
                                long[] column = channel.column(16);
                                java.util.Arrays.fill(column, b);
                                while (!channel.offer(column)) {
                                    Thread.onSpinWait();
                                }
                            }
                        });
        producer.start();
        for (int b = 0; b < batches; b++) {
            Object item;
            while ((item = channel.poll()) == null) {
                Thread.onSpinWait();
            }
            long[] column = (long[]) item;
            for (long value : column) {
                assertThat(value).isEqualTo(b);
            }
            channel.recycleColumn(column);
        }
        producer.join();
    }
}
