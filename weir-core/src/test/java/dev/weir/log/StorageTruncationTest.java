package dev.weir.log;

import static dev.weir.log.DurableLogProperties.payload;
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
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every file of a crash image (all appends forced, the writer killed) cut at each interesting
 * length: the outcome is a clear error naming what is missing, or every acknowledged record
 * readable — never fewer records without a word (issue 12, storage fault suite).
 */
class StorageTruncationTest {
    static final LogOptions SMALL_SEGMENTS = LogOptions.defaults().withSegmentBytes(4096);
    static final int RECORDS = 300;
    static final int RECORD = 125;

    @TempDir Path temp;

    /** A crash image of {@value #RECORDS} records of 100 bytes, each batch of 10 forced. */
    Path crashImage() throws IOException {
        Path live = temp.resolve("live");
        Path image = temp.resolve("image");
        try (DurableLog log = DurableLog.open(live, SMALL_SEGMENTS)) {
            log.createTopic("t", 1);
            for (int i = 0; i < RECORDS; i += 10) {
                List<byte[]> batch = new ArrayList<>();
                for (int j = i; j < i + 10; j++) {
                    batch.add(payload(j, 100));
                }
                log.append("t", 0, batch);
            }
            StorageRecoveryPointTest.copyTree(live, image);
        }
        return image;
    }

    static List<Path> files(Path partition, String suffix) throws IOException {
        try (Stream<Path> files = Files.list(partition)) {
            return files.filter(p -> p.toString().endsWith(suffix)).sorted().toList();
        }
    }

    /**
     * Cuts {@code target} ({@code last-segment}, {@code first-segment}, {@code first-index}, {@code
     * recovery-point}, {@code topic-file}) to {@code length}, where a negative length counts back
     * from the end and {@code record:k} means k whole records.
     */
    @ParameterizedTest(name = "{0} cut to {1}: {2}")
    @CsvSource({
        "last-segment, 0, corrupt",
        "last-segment, 1, corrupt",
        "last-segment, 24, corrupt",
        "last-segment, 25, corrupt",
        "last-segment, record:1, corrupt",
        "last-segment, -1, corrupt",
        "last-segment, -25, corrupt",
        "last-segment, -125, corrupt",
        "last-segment, -0, every record",
        "first-segment, 0, corrupt",
        "first-segment, 30, corrupt",
        "first-segment, record:10, corrupt",
        "first-segment, -1, corrupt",
        "first-index, 0, every record",
        "first-index, 3, every record",
        "first-index, -4, every record",
        "recovery-point, 0, every record",
        "recovery-point, 10, every record",
        "recovery-point, -1, every record",
        "topic-file, 0, topic error",
        "topic-file, 5, topic error",
    })
    void aCutFileIsAClearErrorOrLosesNothing(String target, String length, String outcome)
            throws IOException {
        Path image = crashImage();
        Path partition = image.resolve("t").resolve("0");
        List<Path> segments = files(partition, ".log");
        assertThat(segments.size()).as("several segments").isGreaterThan(3);
        Path file =
                switch (target) {
                    case "last-segment" -> segments.get(segments.size() - 1);
                    case "first-segment" -> segments.get(0);
                    case "first-index" -> files(partition, ".index").get(0);
                    case "recovery-point" -> partition.resolve("recovery-point");
                    case "topic-file" -> image.resolve("t").resolve("topic.properties");
                    default -> throw new AssertionError(target);
                };
        long size = Files.size(file);
        long cut =
                length.startsWith("record:")
                        ? Long.parseLong(length.substring(7)) * RECORD
                        : length.startsWith("-")
                                ? size + Long.parseLong(length)
                                : Long.parseLong(length);
        assertThat(cut).isBetween(0L, size);
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.setLength(cut);
        }

        try (DurableLog log = DurableLog.open(image, SMALL_SEGMENTS)) {
            switch (outcome) {
                case "corrupt" ->
                        assertThatThrownBy(() -> log.read("t", 0, 0, Integer.MAX_VALUE))
                                .isInstanceOf(LogCorruptedException.class)
                                .hasMessageContaining("topic 't' partition 0")
                                .hasMessageContaining(file.toString());
                case "topic error" ->
                        assertThatThrownBy(() -> log.endOffset("t", 0))
                                .hasMessageContaining(file.toString());
                case "every record" -> {
                    assertThat(log.endOffset("t", 0)).isEqualTo(RECORDS);
                    List<LogRecord> all = log.read("t", 0, 0, Integer.MAX_VALUE);
                    assertThat(all).hasSize(RECORDS);
                    for (LogRecord record : all) {
                        assertThat(record.payload()).isEqualTo(payload(record.offset(), 100));
                    }
                }
                default -> throw new AssertionError(outcome);
            }
        }
    }
}
