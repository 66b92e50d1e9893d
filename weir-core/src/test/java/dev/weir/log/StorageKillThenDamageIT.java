package dev.weir.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.api.log.DurableLog;
import dev.weir.api.log.LogCorruptedException;
import dev.weir.api.log.LogOptions;
import dev.weir.api.log.LogRecord;
import dev.weir.testing.LogWriterChild;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A writer process is killed with SIGKILL; then one bit of a record it had acknowledged (so forced)
 * is flipped, anywhere in any segment: reading the log is a {@link LogCorruptedException} naming
 * the damage, never a silent cut; without the flip every acknowledged record is there.
 */
class StorageKillThenDamageIT {
    @TempDir Path temp;

    static int recordBytes(long offset) {
        return 25 + LogWriterChild.payload(offset).length;
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {31, 32, 33})
    void aFlippedBitInAcknowledgedRecordsIsReportedNeverCut(long seed) throws Exception {
        Random random = new Random(seed);
        Path dir = temp.resolve("log");
        Process child =
                new ProcessBuilder(
                                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                                "-Xmx128m",
                                "-cp",
                                System.getProperty("java.class.path"),
                                LogWriterChild.class.getName(),
                                dir.toString(),
                                Integer.toString(1 + random.nextInt(300)))
                        .redirectErrorStream(true)
                        .start();
        long acked = 0;
        long target = 3_000 + random.nextInt(5_000);
        try (BufferedReader out =
                new BufferedReader(
                        new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while (acked < target && (line = out.readLine()) != null) {
                if (line.startsWith("acked ")) {
                    acked = Long.parseLong(line.substring(6));
                }
            }
        } finally {
            child.destroyForcibly().waitFor();
        }
        assertThat(acked).isGreaterThanOrEqualTo(target);
        Path damaged = temp.resolve("damaged");
        StorageRecoveryPointTest.copyTree(dir, damaged);

        try (DurableLog log = DurableLog.open(dir, LogOptions.defaults())) {
            List<LogRecord> all = log.read("t", 0, 0, Integer.MAX_VALUE);
            assertThat((long) all.size()).isGreaterThanOrEqualTo(acked);
            for (LogRecord record : all) {
                assertThat(record.payload()).isEqualTo(LogWriterChild.payload(record.offset()));
            }
        }

        long victim = random.nextLong(acked);
        Path segment = segmentHolding(damaged.resolve("t").resolve("0"), victim);
        long base = Long.parseLong(segment.getFileName().toString().replace(".log", ""));
        long position = 0;
        for (long o = base; o < victim; o++) {
            position += recordBytes(o);
        }
        position += random.nextInt(recordBytes(victim));
        try (RandomAccessFile file = new RandomAccessFile(segment.toFile(), "rw")) {
            file.seek(position);
            int b = file.read();
            file.seek(position);
            file.write(b ^ (1 << random.nextInt(8)));
        }
        try (DurableLog log = DurableLog.open(damaged, LogOptions.defaults())) {
            assertThatThrownBy(() -> log.read("t", 0, 0, Integer.MAX_VALUE))
                    .as("record %d at byte %d of %s", victim, position, segment)
                    .isInstanceOf(LogCorruptedException.class)
                    .hasMessageContaining("offset " + victim + " ")
                    .hasMessageContaining(segment.toString());
        }
    }

    /** The segment file of {@code partition} whose base is the largest at or below {@code o}. */
    static Path segmentHolding(Path partition, long offset) throws Exception {
        try (Stream<Path> files = Files.list(partition)) {
            return files.filter(p -> p.toString().endsWith(".log"))
                    .filter(
                            p ->
                                    Long.parseLong(p.getFileName().toString().replace(".log", ""))
                                            <= offset)
                    .max(Path::compareTo)
                    .orElseThrow();
        }
    }
}
