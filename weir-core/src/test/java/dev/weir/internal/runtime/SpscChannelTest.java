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
}
