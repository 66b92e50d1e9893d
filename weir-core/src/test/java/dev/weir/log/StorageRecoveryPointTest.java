package dev.weir.log;

import static dev.weir.log.DurableLogProperties.payload;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.api.log.DurableLog;
import dev.weir.api.log.LogCorruptedException;
import dev.weir.api.log.LogOptions;
import dev.weir.api.log.LogOptions.FsyncPolicy;
import dev.weir.api.log.LogRecord;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Only bytes after the last durable point may be treated as a torn tail (issue 12, item 2). A
 * "crash image" is a copy of the log directory taken while the writer still has it open: what a
 * SIGKILL leaves (the page cache survives, nothing was closed).
 */
class StorageRecoveryPointTest {
    static final int BYTES = 100;
    static final int RECORD = 25 + BYTES;

    @TempDir Path temp;

    Path segment(Path dir) {
        return dir.resolve("t").resolve("0").resolve(String.format("%020d.log", 0));
    }

    /**
     * Appends {@code forced} records in batches of 100, each forced as policy EVERY_BATCH would,
     * then {@code unforced} more that are never forced (policy NEVER), and returns a crash image.
     */
    Path crashImage(int forced, int unforced) throws IOException {
        Path dir = temp.resolve("log");
        Path image = temp.resolve("image");
        try (DurableLog log =
                DurableLog.open(dir, LogOptions.defaults().withFsync(FsyncPolicy.NEVER))) {
            log.createTopic("t", 1);
            for (int next = 0; next < forced; next += 100) {
                append(log, next, Math.min(100, forced - next));
                log.flush();
            }
            append(log, forced, unforced);
            copyTree(dir, image);
        }
        return image;
    }

    static void append(DurableLog log, long from, int count) {
        for (long next = from; next < from + count; next += 100) {
            List<byte[]> batch = new ArrayList<>();
            for (long o = next; o < Math.min(from + count, next + 100); o++) {
                batch.add(payload(o, BYTES));
            }
            assertThat(log.append("t", 0, batch)).isEqualTo(next);
        }
    }

    static void flip(Path file, long position) throws IOException {
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.seek(position);
            int b = raf.read();
            raf.seek(position);
            raf.write(b ^ 0x10);
        }
    }

    static void truncate(Path file, long length) throws IOException {
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.setLength(length);
        }
    }

    static void assertCorruptOnOpen(Path dir, long offset, String... phrases) {
        try (DurableLog log = DurableLog.open(dir, LogOptions.defaults())) {
            var thrown =
                    assertThatThrownBy(() -> log.endOffset("t", 0))
                            .isInstanceOf(LogCorruptedException.class)
                            .hasMessageContaining("topic 't' partition 0")
                            .hasMessageContaining("offset " + offset + " ")
                            .hasMessageContaining(
                                    dir.resolve("t").resolve("0").resolve("").toString());
            for (String phrase : phrases) {
                thrown.hasMessageContaining(phrase);
            }
        }
    }

    static void assertRecords(Path dir, long count) {
        try (DurableLog log = DurableLog.open(dir, LogOptions.defaults())) {
            assertThat(log.endOffset("t", 0)).isEqualTo(count);
            List<LogRecord> all = log.read("t", 0, 0, Integer.MAX_VALUE);
            assertThat(all).hasSize((int) count);
            for (LogRecord record : all) {
                assertThat(record.payload()).isEqualTo(payload(record.offset(), BYTES));
            }
        }
    }

    @Test
    void aFlippedByteInForcedRecordsIsCorruptionNotATornTail() throws IOException {
        Path image = crashImage(1000, 0);
        flip(segment(image), 17_000);
        assertCorruptOnOpen(image, 17_000 / RECORD, "forced to disk");
    }

    @Test
    void aFlippedByteInTheLastForcedRecordIsCorruptionToo() throws IOException {
        Path image = crashImage(1000, 0);
        flip(segment(image), 1000L * RECORD - 10);
        assertCorruptOnOpen(image, 999, "forced to disk");
    }

    @Test
    void aSegmentShorterThanItsRecoveryPointIsCorruption() throws IOException {
        Path image = crashImage(1000, 0);
        Path copy = temp.resolve("copy");
        copyTree(image, copy);
        truncate(segment(image), 1000L * RECORD - 60);
        assertCorruptOnOpen(image, 999, "missing");
        truncate(segment(copy), 700L * RECORD); // at a record boundary
        assertCorruptOnOpen(copy, 700, "missing");
    }

    @Test
    void aTornTailAfterTheRecoveryPointIsCutAndEveryForcedRecordStays() throws IOException {
        Path image = crashImage(500, 500);
        truncate(segment(image), 800L * RECORD + 40);
        String warnings = StandardError.during(() -> assertRecords(image, 800));
        assertThat(warnings).contains("cut").contains("torn write");
    }

    @Test
    void aBadRecordFollowedByValidOnesIsCorruptionEvenAfterTheRecoveryPoint() throws IOException {
        Path image = crashImage(500, 500);
        flip(segment(image), 700L * RECORD + 50);
        assertCorruptOnOpen(image, 700, "a valid record follows (offset 701");
    }

    @Test
    void aBadLastRecordAfterTheRecoveryPointIsATornTail() throws IOException {
        Path image = crashImage(500, 500);
        flip(segment(image), 1000L * RECORD - 3);
        assertRecords(image, 999);
    }

    @Test
    void afterACleanCloseDamageInsideIsFoundByTheReaderNeverSkipped() throws IOException {
        Path dir = temp.resolve("log");
        try (DurableLog log = DurableLog.open(dir, LogOptions.defaults())) {
            log.createTopic("t", 1);
            append(log, 0, 1000);
        }
        flip(segment(dir), 17_000);
        try (DurableLog log = DurableLog.open(dir, LogOptions.defaults())) {
            assertThat(log.endOffset("t", 0)).isEqualTo(1000);
            assertThat(log.read("t", 0, 0, 100)).hasSize(100);
            assertThatThrownBy(() -> log.read("t", 0, 0, 1000))
                    .isInstanceOf(LogCorruptedException.class)
                    .hasMessageContaining("offset 136 ");
        }
    }

    @Test
    void anEditedCleanCloseMarkerIsNotTrusted() throws IOException {
        Path dir = temp.resolve("log");
        try (DurableLog log = DurableLog.open(dir, LogOptions.defaults())) {
            log.createTopic("t", 1);
            append(log, 0, 100);
        }
        Path partition = dir.resolve("t").resolve("0");
        // The marker an older Weir trusted: base, length, count; the count raised past the data.
        Files.writeString(
                partition.resolve("clean-close"),
                "0 " + Files.size(segment(dir)) + " 5000",
                StandardCharsets.UTF_8);
        assertRecords(dir, 100);
        try (DurableLog log = DurableLog.open(dir, LogOptions.defaults())) {
            assertThat(log.append("t", 0, List.of(payload(100, BYTES)))).isEqualTo(100);
        }
    }

    @Test
    void aDamagedRecoveryPointIsIgnoredWithAWarning() throws IOException {
        Path image = crashImage(500, 500);
        Path point = image.resolve("t").resolve("0").resolve("recovery-point");
        assertThat(point).exists();
        flip(point, 20);
        String warnings = StandardError.during(() -> assertRecords(image, 1000));
        assertThat(warnings).contains(point.toString()).contains("not usable");
    }

    @Test
    void aSegmentFileMissingBelowTheRecoveryPointIsCorruption() throws IOException {
        Path dir = temp.resolve("log");
        LogOptions small = LogOptions.defaults().withSegmentBytes(4096);
        try (DurableLog log = DurableLog.open(dir, small)) {
            log.createTopic("t", 1);
            append(log, 0, 300);
        }
        Path last;
        try (Stream<Path> files = Files.list(dir.resolve("t").resolve("0"))) {
            last =
                    files.filter(p -> p.toString().endsWith(".log"))
                            .max(Path::compareTo)
                            .orElseThrow();
        }
        Files.delete(last);
        long base = Long.parseLong(last.getFileName().toString().replace(".log", ""));
        assertCorruptOnOpen(dir, base, "the segment is missing");
    }

    @Test
    void reopeningACleanlyClosedLogToReadItWritesNothing() throws IOException {
        Path dir = temp.resolve("log");
        try (DurableLog log = DurableLog.open(dir, LogOptions.defaults())) {
            log.createTopic("t", 1);
            append(log, 0, 1000);
        }
        Path partition = dir.resolve("t").resolve("0");
        java.util.Map<Path, String> before = snapshot(partition);
        assertRecords(dir, 1000);
        assertThat(snapshot(partition)).isEqualTo(before);
    }

    /** Each file's bytes (as a hash) and modification time. */
    static java.util.Map<Path, String> snapshot(Path dir) throws IOException {
        java.util.Map<Path, String> files = new java.util.TreeMap<>();
        try (Stream<Path> paths = Files.list(dir)) {
            for (Path path : paths.toList()) {
                files.put(
                        path,
                        java.util.Arrays.hashCode(Files.readAllBytes(path))
                                + "@"
                                + Files.getLastModifiedTime(path).toMillis());
            }
        }
        return files;
    }

    static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> paths = Files.walk(from)) {
            for (Path path : paths.toList()) {
                Path target = to.resolve(from.relativize(path).toString());
                if (Files.isDirectory(path)) {
                    Files.createDirectories(target);
                } else if (!path.getFileName().toString().equals(".lock")) {
                    Files.copy(path, target, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
    }

    /**
     * Damage in committed data fails a job reading it at once, naming it: a restart would read the
     * same bytes again, so the restart strategy's attempts are not spent on it.
     */
    @Test
    void aJobReadingDamagedCommittedDataFailsAtOnceWithoutRestarts() throws Exception {
        Path dir = temp.resolve("log");
        try (DurableLog log = DurableLog.open(dir, LogOptions.defaults())) {
            log.createTopic("t", 1);
            List<byte[]> batch = new ArrayList<>();
            for (long n = 0; n < 1000; n++) {
                batch.add(java.nio.ByteBuffer.allocate(8).putLong(n).array());
            }
            log.append("t", 0, batch);
        }
        flip(segment(dir), Files.size(segment(dir)) / 2);
        dev.weir.api.Pipeline pipeline =
                dev.weir.api.Pipeline.create("damaged")
                        .restartStrategy(
                                dev.weir.api.RestartStrategy.fixedDelay(
                                        100, java.time.Duration.ZERO));
        pipeline.source(
                        "t",
                        dev.weir.api.source.Sources.log(dir, "t", dev.weir.api.codec.Codecs.LONG))
                .sink("out", dev.weir.api.sink.Sinks.counting());
        dev.weir.api.JobHandle job = pipeline.start();

        assertThatThrownBy(job::await)
                .isInstanceOf(dev.weir.api.JobFailedException.class)
                .rootCause()
                .isInstanceOf(LogCorruptedException.class);
        assertThat(job.restarts()).isZero();
    }
}
