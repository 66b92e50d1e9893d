package dev.weir.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.api.log.DurableLog;
import dev.weir.api.log.LogOptions;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link DurableLog#checkPartition} refuses what every lookup refuses, with the same messages, and
 * opens nothing; {@link DurableLog#appendTransaction} writes like {@code append} does.
 */
class DurableLogChecksTest {
    @TempDir Path dir;

    @Test
    void checkPartitionRefusesWithTheMessagesOfEveryLookupAndOpensNothing() {
        try (DurableLog log = DurableLog.open(dir, LogOptions.defaults())) {
            log.createTopic("t", 2);
            log.checkPartition("t", 1);
            assertThat(dir.resolve("t").resolve("1")).doesNotExist();
            for (int partition : new int[] {-1, 2}) {
                String expected = "topic 't' has partitions 0..1, not " + partition;
                assertThatThrownBy(() -> log.checkPartition("t", partition))
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessage(expected);
                assertThatThrownBy(() -> log.endOffset("t", partition)).hasMessage(expected);
            }
            assertThatThrownBy(() -> log.checkPartition("u", 0))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage(
                            "log " + dir + " has no topic 'u'; create it first (weir log create)");
            assertThatThrownBy(() -> log.checkPartition("../t", 0))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("is not allowed");
        }
    }

    @Test
    void aClosedHandleRefusesTheCheck() {
        DurableLog log = DurableLog.open(dir, LogOptions.defaults());
        log.createTopic("t", 1);
        log.close();
        assertThatThrownBy(() -> log.checkPartition("t", 0))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("log " + dir + " is closed");
    }

    @Test
    void aTransactionTakesAnOffsetPerMarkerAndIsRefusedReadOnly() {
        try (DurableLog log = DurableLog.open(dir, LogOptions.defaults())) {
            log.createTopic("t", 1);
            assertThat(log.appendTransaction("t", 0, List.of(new byte[] {1}, new byte[] {2}), 9))
                    .isZero();
            assertThat(log.endOffset("t", 0)).isEqualTo(4);
            assertThat(log.read("t", 0, 0, 10)).extracting(r -> r.offset()).containsExactly(1L, 2L);
        }
        try (DurableLog reader = DurableLog.openReadOnly(dir, LogOptions.defaults())) {
            assertThatThrownBy(() -> reader.appendTransaction("t", 0, List.of(new byte[] {3}), 10))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("was opened read-only");
            assertThat(reader.endOffset("t", 0)).isEqualTo(4);
        }
    }
}
