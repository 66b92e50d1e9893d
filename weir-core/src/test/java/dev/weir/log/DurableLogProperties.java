package dev.weir.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.api.log.DurableLog;
import dev.weir.api.log.LogCorruptedException;
import dev.weir.api.log.LogOptions;
import dev.weir.api.log.LogRecord;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.lifecycle.AfterProperty;
import org.junit.jupiter.api.Test;

class DurableLogProperties {
    static final LogOptions SMALL_SEGMENTS = LogOptions.defaults().withSegmentBytes(4096);
    static final LogOptions UNFORCED = SMALL_SEGMENTS.withFsync(LogOptions.FsyncPolicy.NEVER);
    final List<Path> temporary = new ArrayList<>();

    Path newDir() throws IOException {
        Path dir = Files.createTempDirectory("weir-log-");
        temporary.add(dir);
        return dir;
    }

    @AfterProperty
    void cleanUp() throws IOException {
        for (Path dir : temporary) {
            try (Stream<Path> paths = Files.walk(dir)) {
                for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(path);
                }
            }
        }
        temporary.clear();
    }

    static byte[] payload(long offset, int length) {
        byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++) {
            bytes[i] = (byte) (offset * 31 + i);
        }
        return bytes;
    }

    static Path lastSegment(Path partitionDir) throws IOException {
        try (Stream<Path> files = Files.list(partitionDir)) {
            return files.filter(p -> p.toString().endsWith(".log"))
                    .max(Comparator.naturalOrder())
                    .orElseThrow();
        }
    }

    /**
     * A crash image (the directory copied while the writer has it open) of appends never forced
     * (policy NEVER: only a roll forces the sealed segment), its last segment torn anywhere: the
     * whole records remain. (Tearing forced records is corruption: {@code
     * StorageRecoveryPointProperties}.)
     */
    @Property(tries = 60)
    void afterATornTailExactlyTheFullyWrittenRecordsRemainWithTheirOffsets(
            @ForAll @Size(min = 1, max = 20) List<@IntRange(min = 1, max = 30) Integer> batchSizes,
            @ForAll @IntRange(min = 0, max = 300) int payloadBytes,
            @ForAll @IntRange(min = 0, max = 1_000_000) int cutSeed)
            throws IOException {
        Path dir = newDir();
        Path image = newDir();
        try (DurableLog log = DurableLog.open(dir, UNFORCED)) {
            log.createTopic("t", 1);
            appendBatches(log, batchSizes, payloadBytes, 0);
            copyTree(dir, image);
        }
        long survivors = tearLastSegment(image, cutSeed, payloadBytes, 0);

        assertExactlyTheFirst(image, survivors, payloadBytes, survivors / 2);
    }

    /**
     * Cuts the last segment of topic t's partition 0 at a byte chosen by {@code cutSeed}, after its
     * first {@code durable} records (those forced: cutting them is corruption, not a torn tail);
     * returns how many records are then whole.
     */
    private static long tearLastSegment(Path dir, int cutSeed, int payloadBytes, long durable)
            throws IOException {
        Path segment = lastSegment(dir.resolve("t").resolve("0"));
        long base = Long.parseLong(segment.getFileName().toString().replace(".log", ""));
        long kept = Math.max(0, durable - base) * (25 + payloadBytes);
        long cut = kept + cutSeed % (Files.size(segment) - kept + 1);
        try (RandomAccessFile file = new RandomAccessFile(segment.toFile(), "rw")) {
            file.setLength(cut);
        }
        return base + cut / (25 + payloadBytes);
    }

    /**
     * Reopens the log in {@code dir}: exactly records 0..survivors-1 with their payloads, the next
     * append gets offset {@code survivors}, and a read from {@code from} starts there.
     */
    private static void assertExactlyTheFirst(Path dir, long survivors, int payloadBytes, long from)
            throws IOException {
        try (DurableLog log = DurableLog.open(dir, SMALL_SEGMENTS)) {
            assertThat(log.endOffset("t", 0)).isEqualTo(survivors);
            List<LogRecord> all = log.read("t", 0, 0, Integer.MAX_VALUE);
            assertThat(all).hasSize((int) survivors);
            for (LogRecord record : all) {
                assertThat(record.payload()).isEqualTo(payload(record.offset(), payloadBytes));
            }
            assertThat(log.append("t", 0, List.of(payload(survivors, payloadBytes))))
                    .isEqualTo(survivors);
            assertThat(log.read("t", 0, from, 1))
                    .extracting(LogRecord::offset)
                    .containsExactly(from);
        }
    }

    @Test
    void aCorruptRecordInAnOlderSegmentIsAClearErrorNamingTopicPartitionAndOffset()
            throws IOException {
        Path dir = newDir();
        try (DurableLog log = DurableLog.open(dir, SMALL_SEGMENTS)) {
            log.createTopic("orders", 2);
            for (int i = 0; i < 100; i++) {
                log.append("orders", 1, List.of(payload(i, 100)));
            }
        }
        Path first = dir.resolve("orders").resolve("1").resolve(String.format("%020d.log", 0));
        try (RandomAccessFile file = new RandomAccessFile(first.toFile(), "rw")) {
            file.seek(3 * 125 + 40);
            file.write(0x5a);
        }
        try (DurableLog log = DurableLog.open(dir, SMALL_SEGMENTS)) {
            assertThat(log.read("orders", 1, 0, 3)).hasSize(3);
            assertThatThrownBy(() -> log.read("orders", 1, 0, 100))
                    .isInstanceOf(LogCorruptedException.class)
                    .hasMessageContaining("topic 'orders' partition 1")
                    .hasMessageContaining("offset 3")
                    .hasMessageContaining("CRC32C")
                    .hasMessageContaining(first.toString());
        }
    }

    @Test
    void retentionBySizeDeletesTheOldestSegmentsAndReadersAreToldWhy() throws IOException {
        Path dir = newDir();
        try (DurableLog log =
                DurableLog.open(
                        dir, SMALL_SEGMENTS.withRetention(3 * 4096, java.time.Duration.ZERO))) {
            log.createTopic("t", 1);
            for (int i = 0; i < 400; i++) {
                log.append("t", 0, List.of(payload(i, 100)));
            }
            long start = log.startOffset("t", 0);
            assertThat(start).isPositive();
            assertThat(log.read("t", 0, start, 1000)).hasSize((int) (400 - start));
            assertThatThrownBy(() -> log.read("t", 0, 0, 1))
                    .hasMessageContaining("deleted by retention");
        }
    }

    /**
     * A clean close lets the next open skip scanning the last segment; appends after it (never
     * forced), then a crash image torn anywhere after the records the close forced, must still be
     * cut to exactly the fully written records.
     */
    @Property(tries = 60)
    void aCleanCloseIsTrustedOnlyWhileTheLastSegmentIsUnchanged(
            @ForAll @Size(min = 1, max = 10) List<@IntRange(min = 1, max = 30) Integer> before,
            @ForAll @Size(max = 10) List<@IntRange(min = 1, max = 30) Integer> after,
            @ForAll @IntRange(min = 0, max = 300) int payloadBytes,
            @ForAll @IntRange(min = 0, max = 1_000_000) int cutSeed)
            throws IOException {
        Path dir = newDir();
        long written = 0;
        try (DurableLog log = DurableLog.open(dir, SMALL_SEGMENTS)) {
            log.createTopic("t", 1);
            written = appendBatches(log, before, payloadBytes, written);
        }
        long durable = written;
        Path image = newDir();
        try (DurableLog log = DurableLog.open(dir, UNFORCED)) {
            assertThat(log.endOffset("t", 0)).isEqualTo(written);
            long from = written / 3;
            assertThat(log.read("t", 0, from, 1))
                    .extracting(LogRecord::offset)
                    .containsExactly(from);
            written = appendBatches(log, after, payloadBytes, written);
            copyTree(dir, image); // what a crash now would leave: no second clean close
        }
        long survivors = tearLastSegment(image, cutSeed, payloadBytes, durable);

        assertExactlyTheFirst(image, survivors, payloadBytes, survivors * 2 / 3);
    }

    private static long appendBatches(
            DurableLog log, List<Integer> batches, int payloadBytes, long written)
            throws IOException {
        for (int batch : batches) {
            List<byte[]> records = new ArrayList<>();
            for (int i = 0; i < batch; i++) {
                records.add(payload(written + i, payloadBytes));
            }
            assertThat(log.append("t", 0, records)).isEqualTo(written);
            written += batch;
        }
        return written;
    }

    static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> paths = Files.walk(from)) {
            for (Path path : paths.toList()) {
                Path target = to.resolve(from.relativize(path).toString());
                if (Files.isDirectory(path)) {
                    Files.createDirectories(target);
                } else if (!path.getFileName().toString().equals(".lock")) {
                    Files.copy(path, target, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
    }

    @Test
    void aTopicCannotBeRecreatedWithAnotherPartitionCount() throws IOException {
        try (DurableLog log = DurableLog.open(newDir(), LogOptions.defaults())) {
            log.createTopic("t", 2);
            log.createTopic("t", 2);
            assertThatThrownBy(() -> log.createTopic("t", 3))
                    .hasMessageContaining("exists with 2 partitions");
        }
    }
}
