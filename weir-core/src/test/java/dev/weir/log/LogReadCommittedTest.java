package dev.weir.log;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.api.log.DurableLog;
import dev.weir.api.log.LogOptions;
import dev.weir.api.log.LogOptions.FsyncPolicy;
import dev.weir.api.log.LogRecord;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code DurableLog.read} is read-committed (issue 12, item 6): plain records, and a transaction's
 * records once its COMMIT is in the log; never markers, never a transaction that did not commit.
 */
class LogReadCommittedTest {
    @TempDir Path temp;
    Path dir;

    static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static List<String> texts(List<LogRecord> records) {
        return records.stream().map(r -> new String(r.payload(), StandardCharsets.UTF_8)).toList();
    }

    /**
     * Offsets: 0 a, 1 BEGIN(7), 2 x, 3 y, 4 COMMIT(7), 5 BEGIN(8), 6 z — transaction 8's COMMIT was
     * torn off by a crash before it was forced — then 7 b.
     */
    @BeforeEach
    void logWithACommittedAndATornTransaction() throws IOException {
        Path live = temp.resolve("live");
        dir = temp.resolve("log");
        try (DurableLog log =
                DurableLog.open(live, LogOptions.defaults().withFsync(FsyncPolicy.NEVER))) {
            log.createTopic("t", 1);
            log.append("t", 0, List.of(b("a")));
            log.partition("t", 0).appendTransaction(List.of(b("x"), b("y")), 7);
            log.flush();
            log.partition("t", 0).appendTransaction(List.of(b("z")), 8);
            StorageRecoveryPointTest.copyTree(live, dir);
        }
        Path segment = dir.resolve("t").resolve("0").resolve(String.format("%020d.log", 0));
        try (RandomAccessFile file = new RandomAccessFile(segment.toFile(), "rw")) {
            file.setLength(file.length() - 5); // tears transaction 8's COMMIT
        }
        try (DurableLog log = DurableLog.open(dir, LogOptions.defaults())) {
            assertThat(log.append("t", 0, List.of(b("b")))).isEqualTo(7);
        }
    }

    @Test
    void readShowsCommittedRecordsOnlyWithTheirOffsets() {
        try (DurableLog log = DurableLog.openReadOnly(dir, LogOptions.defaults())) {
            List<LogRecord> all = log.read("t", 0, 0, 100);
            assertThat(texts(all)).containsExactly("a", "x", "y", "b");
            assertThat(all).extracting(LogRecord::offset).containsExactly(0L, 2L, 3L, 7L);
        }
    }

    @Test
    void readingOnFromTheLastRecordReturnedMissesNothingAndRepeatsNothing() {
        try (DurableLog log = DurableLog.open(dir, LogOptions.defaults())) {
            for (int max = 1; max <= 4; max++) {
                List<String> seen = new java.util.ArrayList<>();
                long from = 0;
                while (true) {
                    List<LogRecord> page = log.read("t", 0, from, max);
                    if (page.isEmpty()) {
                        break;
                    }
                    assertThat(page.size()).isLessThanOrEqualTo(max);
                    seen.addAll(texts(page));
                    from = page.get(page.size() - 1).offset() + 1;
                }
                assertThat(seen).as("pages of %d", max).containsExactly("a", "x", "y", "b");
            }
            assertThat(texts(log.read("t", 0, 3, 100))).containsExactly("y", "b");
            assertThat(texts(log.read("t", 0, 5, 100))).containsExactly("b");
        }
    }

    @Test
    void readUncommittedShowsEveryRecordAsStored() {
        try (DurableLog log = DurableLog.openReadOnly(dir, LogOptions.defaults())) {
            var entries = log.readUncommitted("t", 0, 0, 100);
            assertThat(entries)
                    .extracting(e -> e.offset() + " " + e.kind() + " " + e.transaction())
                    .containsExactly(
                            "0 DATA -1",
                            "1 BEGIN 7",
                            "2 TRANSACTION_DATA 7",
                            "3 TRANSACTION_DATA 7",
                            "4 COMMIT 7",
                            "5 BEGIN 8",
                            "6 TRANSACTION_DATA 8",
                            "7 DATA -1");
        }
    }
}
