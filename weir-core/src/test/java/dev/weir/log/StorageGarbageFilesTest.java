package dev.weir.log;

import static dev.weir.log.DurableLogProperties.payload;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.api.log.DurableLog;
import dev.weir.api.log.LogOptions;
import dev.weir.api.log.LogRecord;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Files that are not Weir's in a partition directory are ignored (and named in a WARN), never
 * parsed or deleted; a damaged offset index is detected by its checksum and rebuilt from the
 * segment (issue 12, item 5).
 */
class StorageGarbageFilesTest {
    static final LogOptions SMALL_SEGMENTS = LogOptions.defaults().withSegmentBytes(4096);
    static final int RECORDS = 300;

    @TempDir Path dir;

    Path partition() {
        return dir.resolve("t").resolve("0");
    }

    void writeRecords() {
        try (DurableLog log = DurableLog.open(dir, SMALL_SEGMENTS)) {
            log.createTopic("t", 1);
            for (int i = 0; i < RECORDS; i += 10) {
                List<byte[]> batch = new ArrayList<>();
                for (int j = i; j < i + 10; j++) {
                    batch.add(payload(j, 100));
                }
                log.append("t", 0, batch);
            }
        }
    }

    void assertEveryRecordReadable() {
        try (DurableLog log = DurableLog.open(dir, SMALL_SEGMENTS)) {
            assertThat(log.endOffset("t", 0)).isEqualTo(RECORDS);
            List<LogRecord> all = log.read("t", 0, 0, Integer.MAX_VALUE);
            assertThat(all).hasSize(RECORDS);
            for (LogRecord record : all) {
                assertThat(record.payload()).isEqualTo(payload(record.offset(), 100));
            }
            for (long from : new long[] {1, 37, 150, 299}) {
                assertThat(log.read("t", 0, from, 1))
                        .extracting(LogRecord::offset)
                        .containsExactly(from);
            }
            assertThat(log.append("t", 0, List.of(payload(RECORDS, 100)))).isEqualTo(RECORDS);
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(
            strings = {
                "backup.log",
                "123.log",
                "00000000000000000100.log.bak",
                "notes.txt",
                "-0000000000000000001.log",
                "99999999999999999999.log",
                "00000000000000000000.index.old"
            })
    void aFileThatIsNotWeirsIsIgnoredAndLeftAlone(String name) throws IOException {
        writeRecords();
        Path stray = partition().resolve(name);
        Files.write(stray, "not a segment".getBytes(StandardCharsets.UTF_8));

        String warnings = StandardError.during(this::assertEveryRecordReadable);
        assertThat(warnings).contains("ignoring").contains(name);
        assertThat(stray).hasContent("not a segment");
    }

    @Test
    void aDirectoryInsideAPartitionIsIgnored() throws IOException {
        writeRecords();
        Files.createDirectories(partition().resolve("00000000000000000500.log"));
        assertEveryRecordReadable();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"ones", "negative", "truncated", "shuffled", "random", "empty"})
    void aDamagedIndexIsRebuiltFromItsSegment(String damage) throws IOException {
        writeRecords();
        Path index = partition().resolve(String.format("%020d.index", 0));
        byte[] bytes = Files.readAllBytes(index);
        assertThat(bytes.length).as("the first segment has a saved index").isGreaterThan(8);
        switch (damage) {
            case "ones" -> java.util.Arrays.fill(bytes, (byte) 0xff);
            case "negative" -> ByteBuffer.wrap(bytes).putInt(bytes.length - 4, -5000);
            case "truncated" -> bytes = java.util.Arrays.copyOf(bytes, bytes.length - 3);
            case "shuffled" -> {
                // a later entry's position for the first entry: plausible, but wrong
                ByteBuffer b = ByteBuffer.wrap(bytes);
                b.putInt(bytes.length - 4, b.getInt(bytes.length - 4) + 125);
            }
            case "random" -> new Random(5).nextBytes(bytes);
            case "empty" -> bytes = new byte[0];
            default -> throw new AssertionError(damage);
        }
        Files.write(index, bytes);

        String warnings = StandardError.during(this::assertEveryRecordReadable);
        assertThat(warnings).contains(index.toString()).contains("rebuilding");
    }

    @Test
    void aDamagedTopicFileIsAnErrorNamingIt() throws IOException {
        writeRecords();
        Path meta = dir.resolve("t").resolve("topic.properties");
        Files.writeString(meta, "partitions=lots\n");
        try (DurableLog log = DurableLog.open(dir, SMALL_SEGMENTS)) {
            assertThatThrownBy(() -> log.partitions("t"))
                    .hasMessageContaining(meta.toString())
                    .hasMessageContaining("partitions");
        }
    }

    @Test
    void theIndexOfALaterSegmentIsCheckedToo() throws IOException {
        writeRecords();
        List<Path> indexes;
        try (Stream<Path> files = Files.list(partition())) {
            indexes = files.filter(p -> p.toString().endsWith(".index")).sorted().toList();
        }
        assertThat(indexes.size()).isGreaterThan(2);
        for (Path index : indexes) {
            try (RandomAccessFile file = new RandomAccessFile(index.toFile(), "rw")) {
                if (file.length() > 6) {
                    file.seek(5);
                    file.write(0x80);
                }
            }
        }
        assertEveryRecordReadable();
    }
}
