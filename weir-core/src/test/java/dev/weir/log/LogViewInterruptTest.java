package dev.weir.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.api.log.DurableLog;
import dev.weir.api.log.LogOptions;
import dev.weir.api.log.LogRecord;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A reader interrupted inside a read closes the file channels of the read-only view it shares with
 * every reader of the partition in this JVM (Flink interrupts a task's thread when it cancels the
 * task); readers that open the partition afterwards get a fresh view and read on.
 */
class LogViewInterruptTest {
    @TempDir Path dir;

    @Test
    void aReaderInterruptedMidReadLeavesLaterReadersOfThePartitionWorking() {
        try (DurableLog writer = DurableLog.open(dir, LogOptions.defaults())) {
            writer.createTopic("t", 1);
            writer.append("t", 0, List.of(bytes("a"), bytes("b"), bytes("c")));
        }
        DurableLog interrupted = DurableLog.openReadOnly(dir, LogOptions.defaults());
        try {
            assertThat(interrupted.read("t", 0, 0, 10)).hasSize(3);

            Thread.currentThread().interrupt();
            assertThatThrownBy(() -> interrupted.read("t", 0, 0, 10))
                    .hasRootCauseInstanceOf(java.nio.channels.ClosedByInterruptException.class);
            assertThat(Thread.interrupted()).as("the interrupt is still pending").isTrue();

            try (DurableLog later = DurableLog.openReadOnly(dir, LogOptions.defaults())) {
                assertThat(later.read("t", 0, 0, 10))
                        .extracting(LogRecord::payload)
                        .containsExactly(bytes("a"), bytes("b"), bytes("c"));
            }
        } finally {
            interrupted.close();
        }
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
