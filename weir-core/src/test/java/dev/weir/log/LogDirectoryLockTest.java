package dev.weir.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.api.log.DurableLog;
import dev.weir.api.log.LogOptions;
import dev.weir.api.log.LogRecord;
import dev.weir.internal.io.DirectoryLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The log directory's lock within one JVM (issue 12, item 1): shared by every writing handle,
 * released with the last one; read-only handles take none and write nothing. The two-process side
 * is {@code StorageTwoProcessesIT}.
 */
class LogDirectoryLockTest {
    @TempDir Path dir;

    static boolean lockedByThisJvm(Path dir) {
        try (DirectoryLock lock = DirectoryLock.acquire(dir, "probe")) {
            return false;
        } catch (IllegalStateException e) {
            assertThat(e).hasMessageContaining("this process");
            return true;
        }
    }

    @Test
    void twoHandlesInOneJvmShareTheLockAndThePartitions() {
        DurableLog a = DurableLog.open(dir, LogOptions.defaults());
        DurableLog b = DurableLog.open(dir, LogOptions.defaults());
        a.createTopic("t", 1);
        assertThat(a.append("t", 0, List.of(new byte[] {1}))).isZero();
        assertThat(b.append("t", 0, List.of(new byte[] {2}))).isEqualTo(1);
        assertThat(a.partition("t", 0)).isSameAs(b.partition("t", 0));
        assertThat(b.read("t", 0, 0, 10)).hasSize(2);
        assertThat(lockedByThisJvm(dir)).isTrue();
        a.close();
        assertThat(lockedByThisJvm(dir)).as("b still writes").isTrue();
        assertThat(b.append("t", 0, List.of(new byte[] {3}))).isEqualTo(2);
        b.close();
        assertThat(lockedByThisJvm(dir)).as("released with the last handle").isFalse();
    }

    @Test
    void theLockFileIsNeverTakenForATopic() {
        try (DurableLog log = DurableLog.open(dir, LogOptions.defaults())) {
            log.createTopic("t", 1);
            assertThat(dir.resolve(DirectoryLock.FILE_NAME)).exists();
            assertThat(log.topics()).containsExactly("t");
            assertThatThrownBy(() -> log.partitions(".lock")).hasMessageContaining("not allowed");
        }
    }

    @Test
    void aReadOnlyHandleTakesNoLockAndWritesNothing() throws Exception {
        try (DurableLog writer = DurableLog.open(dir, LogOptions.defaults())) {
            writer.createTopic("t", 1);
            writer.append("t", 0, List.of(new byte[] {1}));
        }
        List<Path> before;
        try (var files = Files.walk(dir)) {
            before = files.sorted().toList();
        }
        try (DurableLog reader = DurableLog.openReadOnly(dir, LogOptions.defaults())) {
            assertThat(reader.read("t", 0, 0, 10)).hasSize(1);
            assertThat(lockedByThisJvm(dir)).isFalse();
            assertThatThrownBy(() -> reader.append("t", 0, List.of(new byte[] {2})))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("read-only");
            assertThatThrownBy(() -> reader.createTopic("u", 1)).hasMessageContaining("read-only");
            assertThatThrownBy(reader::flush).hasMessageContaining("read-only");
        }
        try (var files = Files.walk(dir)) {
            assertThat(files.sorted().toList()).isEqualTo(before);
        }
    }

    @Test
    void aReadOnlyViewFollowsAWriterThatOpensLater() {
        try (DurableLog writer =
                DurableLog.open(dir, LogOptions.defaults().withSegmentBytes(2048))) {
            writer.createTopic("t", 1);
        }
        try (DurableLog reader = DurableLog.openReadOnly(dir, LogOptions.defaults())) {
            assertThat(reader.endOffset("t", 0)).isZero();
            try (DurableLog writer =
                    DurableLog.open(dir, LogOptions.defaults().withSegmentBytes(2048))) {
                for (int i = 0; i < 100; i++) {
                    writer.append("t", 0, List.of(new byte[] {(byte) i}, new byte[] {(byte) -i}));
                    assertThat(reader.endOffset("t", 0)).isEqualTo(2L * i + 2);
                }
            }
            List<LogRecord> all = reader.read("t", 0, 0, 1000);
            assertThat(all).hasSize(200);
            for (LogRecord record : all) {
                long i = record.offset() / 2;
                byte expected = (byte) (record.offset() % 2 == 0 ? i : -i);
                assertThat(record.payload()).containsExactly(expected);
            }
        }
    }

    @Test
    void aReadOnlyViewSeeksAnywhereInACleanlyClosedLog() {
        try (DurableLog writer = DurableLog.open(dir, LogOptions.defaults())) {
            writer.createTopic("t", 1);
            for (int i = 0; i < 1000; i += 50) {
                List<byte[]> batch = new java.util.ArrayList<>();
                for (int j = i; j < i + 50; j++) {
                    batch.add(DurableLogProperties.payload(j, 100));
                }
                writer.append("t", 0, batch);
            }
        }
        try (DurableLog reader = DurableLog.openReadOnly(dir, LogOptions.defaults())) {
            assertThat(reader.endOffset("t", 0)).isEqualTo(1000);
            for (long from : new long[] {999, 0, 517, 31, 998}) {
                List<LogRecord> records = reader.read("t", 0, from, 2);
                assertThat(records.get(0).offset()).isEqualTo(from);
                assertThat(records.get(0).payload())
                        .isEqualTo(DurableLogProperties.payload(from, 100));
            }
            assertThat(reader.read("t", 0, 0, 2000)).hasSize(1000);
        }
    }

    @Test
    void aReadOnlyViewOfALogNobodyCreatedIsEmpty() {
        Path missing = dir.resolve("nothing-here");
        try (DurableLog reader = DurableLog.openReadOnly(missing, LogOptions.defaults())) {
            assertThat(reader.topics()).isEmpty();
            assertThatThrownBy(() -> reader.partitions("t")).hasMessageContaining("no topic 't'");
        }
        assertThat(missing).doesNotExist();
    }
}
