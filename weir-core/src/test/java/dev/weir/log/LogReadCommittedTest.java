package dev.weir.log;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.api.log.DurableLog;
import dev.weir.api.log.LogOptions;
import dev.weir.api.log.LogOptions.FsyncPolicy;
import dev.weir.api.log.LogRecord;
import dev.weir.api.log.RecordScanner;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
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
            log.appendTransaction("t", 0, List.of(b("x"), b("y")), 7);
            log.flush();
            log.appendTransaction("t", 0, List.of(b("z")), 8);
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

    @Test
    void scanHandsOnWhatReadReturnsAndSaysWhereToScanOn() {
        try (DurableLog log = DurableLog.openReadOnly(dir, LogOptions.defaults())) {
            for (int max = 1; max <= 4; max++) {
                List<String> seen = new ArrayList<>();
                RecordScanner collect =
                        (offset, buffer, at, length) ->
                                seen.add(
                                        offset
                                                + " "
                                                + new String(
                                                        buffer,
                                                        at,
                                                        length,
                                                        StandardCharsets.UTF_8));
                long from = 0;
                for (long next; (next = log.scan("t", 0, from, max, collect)) > from; ) {
                    assertThat(seen.get(seen.size() - 1)).startsWith((next - 1) + " ");
                    from = next;
                }
                assertThat(seen).as("scans of %d", max).containsExactly("0 a", "2 x", "3 y", "7 b");
                assertThat(from).isEqualTo(8);
            }
            List<String> fromInside = new ArrayList<>();
            assertThat(log.scan("t", 0, 3, 100, (o, buffer, at, length) -> fromInside.add("" + o)))
                    .isEqualTo(8);
            assertThat(fromInside).containsExactly("3", "7");
            assertThat(log.scan("t", 0, 8, 100, (o, buffer, at, length) -> fromInside.add("?")))
                    .as("nothing committed from the end on: the offset it was given")
                    .isEqualTo(8);
            assertThat(log.scan("t", 0, 5, 0, (o, buffer, at, length) -> fromInside.add("?")))
                    .isEqualTo(5);
            assertThat(fromInside).containsExactly("3", "7");
        }
    }

    @Test
    void aTransactionLongerThanAReadersChunkIsScannedAndReadWhole() {
        Path big = temp.resolve("big");
        List<byte[]> batch = new ArrayList<>();
        for (int i = 0; i < 20_000; i++) {
            batch.add(b("record-" + i + "-" + "x".repeat(i % 200)));
        }
        try (DurableLog log = DurableLog.open(big, LogOptions.defaults())) {
            log.createTopic("t", 1);
            log.append("t", 0, List.of(b("before")));
            assertThat(log.appendTransaction("t", 0, batch, 3)).isEqualTo(1);
            log.append("t", 0, List.of(b("after")));
            List<String> scanned = new ArrayList<>();
            long next =
                    log.scan(
                            "t",
                            0,
                            0,
                            Integer.MAX_VALUE,
                            (offset, buffer, at, length) ->
                                    scanned.add(
                                            new String(
                                                    buffer, at, length, StandardCharsets.UTF_8)));
            assertThat(next).isEqualTo(1 + 1 + batch.size() + 1 + 1);
            assertThat(scanned).hasSize(batch.size() + 2);
            assertThat(scanned.get(0)).isEqualTo("before");
            assertThat(scanned.get(12_345))
                    .isEqualTo(new String(batch.get(12_344), StandardCharsets.UTF_8));
            assertThat(scanned.get(scanned.size() - 1)).isEqualTo("after");
            assertThat(texts(log.read("t", 0, 0, Integer.MAX_VALUE))).isEqualTo(scanned);
        }
    }

    @Test
    void scanningOnAcrossSegmentsAndNewAppendsMissesAndRepeatsNothing() {
        Path rolling = temp.resolve("rolling");
        List<String> expected = new ArrayList<>();
        List<String> seen = new ArrayList<>();
        RecordScanner collect =
                (offset, buffer, at, length) ->
                        seen.add(new String(buffer, at, length, StandardCharsets.UTF_8));
        try (DurableLog log =
                DurableLog.open(rolling, LogOptions.defaults().withSegmentBytes(1024))) {
            log.createTopic("t", 1);
            long next = 0;
            for (int round = 0; round <= 40; round++) { // the last one plain
                List<byte[]> batch = new ArrayList<>();
                for (int i = 0; i < round % 5 + 1; i++) {
                    String text = "r" + round + "-" + i + "-" + "p".repeat(round * 3);
                    batch.add(b(text));
                    expected.add(text);
                }
                if (round % 3 == 0) {
                    log.appendTransaction("t", 0, batch, round);
                } else {
                    log.append("t", 0, batch);
                }
                int max = round % 4 + 1;
                for (long after; (after = log.scan("t", 0, next, max, collect)) > next; ) {
                    next = after;
                }
                assertThat(seen).as("after round %d", round).isEqualTo(expected);
            }
            assertThat(next).isEqualTo(log.endOffset("t", 0));
        }
        assertThat(
                        rolling.resolve("t")
                                .resolve("0")
                                .toFile()
                                .list((d, name) -> name.endsWith(".log")))
                .as("the scans crossed segments")
                .hasSizeGreaterThan(3);
    }
}
