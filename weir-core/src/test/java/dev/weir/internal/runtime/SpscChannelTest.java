package dev.weir.internal.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SpscChannelTest {
    @Test
    void refusesWhenFullAndDeliversInOrder() {
        SpscChannel channel = new SpscChannel("c", 4);
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
}
