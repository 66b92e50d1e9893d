package dev.weir.log;

import static dev.weir.log.DurableLogProperties.payload;
import static org.assertj.core.api.Assertions.assertThat;

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

/**
 * A crash image damaged anywhere in its last segment (one flipped bit, or cut at any length) ends
 * in exactly one of two ways, decided by where the damage is against the recovery point: before it,
 * a {@link LogCorruptedException} (on open, or at the latest when the records are read); after it,
 * every forced record readable, plus exactly the undamaged records written after it. Never a silent
 * loss of a forced record, never a wrong record returned (issue 12, item 2).
 */
class StorageRecoveryPointProperties {
    static final LogOptions UNFORCED =
            LogOptions.defaults().withSegmentBytes(4096).withFsync(LogOptions.FsyncPolicy.NEVER);

    final List<Path> temporary = new ArrayList<>();

    Path newDir() throws IOException {
        Path dir = Files.createTempDirectory("weir-rp-");
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

    /** What was written: the records and how many of them were forced. */
    record Written(long records, long forced) {}

    /**
     * Appends {@code batches}; the first {@code forcedBatches} are each followed by a force ({@code
     * flush}), and with {@code cleanClose} the log is closed and reopened after them.
     */
    Written write(Path dir, List<Integer> batches, int forcedBatches, boolean cleanClose, int bytes)
            throws IOException {
        long written = 0;
        long forced = 0;
        DurableLog log = DurableLog.open(dir, UNFORCED);
        try {
            log.createTopic("t", 1);
            for (int i = 0; i < batches.size(); i++) {
                List<byte[]> records = new ArrayList<>();
                for (int j = 0; j < batches.get(i); j++) {
                    records.add(payload(written + j, bytes));
                }
                assertThat(log.append("t", 0, records)).isEqualTo(written);
                written += batches.get(i);
                if (i < forcedBatches) {
                    log.flush();
                    forced = written;
                }
                if (i == forcedBatches - 1 && cleanClose) {
                    log.close();
                    log = DurableLog.open(dir, UNFORCED);
                }
            }
            Path image = newDir();
            DurableLogProperties.copyTree(dir, image);
            return new Written(written, forced);
        } finally {
            log.close();
        }
    }

    @Property(tries = 150)
    void damageBeforeTheRecoveryPointIsAnErrorAndAfterItATornTail(
            @ForAll @Size(min = 1, max = 12) List<@IntRange(min = 1, max = 30) Integer> batches,
            @ForAll @IntRange(min = 0, max = 12) int forcedBatches,
            @ForAll boolean cleanClose,
            @ForAll @IntRange(min = 0, max = 200) int bytes,
            @ForAll boolean flip,
            @ForAll @IntRange(min = 0, max = 1_000_000) int positionSeed)
            throws IOException {
        Path dir = newDir();
        Written written = write(dir, batches, forcedBatches, cleanClose, bytes);
        Path image = temporary.get(temporary.size() - 1);
        int record = 25 + bytes;

        Path segment = DurableLogProperties.lastSegment(image.resolve("t").resolve("0"));
        long base = Long.parseLong(segment.getFileName().toString().replace(".log", ""));
        long size = Files.size(segment);
        // Rolls force the sealed segment, so everything before the last segment is durable too.
        long durable = Math.max(written.forced(), base);
        long durableBytes = (durable - base) * record;
        long expected;
        boolean mustFail;
        try (RandomAccessFile file = new RandomAccessFile(segment.toFile(), "rw")) {
            if (flip && size > 0) {
                long at = positionSeed % size;
                file.seek(at);
                int b = file.read();
                file.seek(at);
                file.write(b ^ (1 << (positionSeed % 8)));
                long damaged = base + at / record;
                mustFail = at < durableBytes || damaged < base + size / record - 1;
                expected = damaged; // the damaged last record is a torn tail
            } else {
                long cut = positionSeed % (size + 1);
                file.setLength(cut);
                mustFail = cut < durableBytes;
                expected = base + cut / record;
            }
        }

        List<LogRecord> all;
        try (DurableLog log = DurableLog.open(image, UNFORCED)) {
            all = log.read("t", 0, 0, Integer.MAX_VALUE);
            assertThat(log.endOffset("t", 0)).isEqualTo(all.size());
        } catch (LogCorruptedException e) {
            assertThat(mustFail).as("refused: %s", e.getMessage()).isTrue();
            assertThat(e).hasMessageContaining("topic 't' partition 0");
            return;
        }
        assertThat(mustFail).as("damage before the recovery point was not reported").isFalse();
        assertThat((long) all.size())
                .as("every forced record is there, and every whole one after")
                .isEqualTo(expected)
                .isGreaterThanOrEqualTo(durable);
        for (LogRecord r : all) {
            assertThat(r.payload()).isEqualTo(payload(r.offset(), bytes));
        }
    }
}
