package dev.weir.verify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.api.codec.Codecs;
import dev.weir.api.log.DurableLog;
import dev.weir.api.log.LogOptions;
import dev.weir.api.log.LogRecord;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The verify input layouts: every record once, each key's records in one split in ascending order
 * (what lets the checker demand per-key order), and splits of different sizes for the log and files
 * sources.
 */
class VerifyInputTest {
    static final long N = 3_000;
    static final long SEED = 7;
    @TempDir Path dir;

    /** Checks that {@code splits} hold 1..N once, each key in one split, ascending. */
    static void assertEachKeyInOneSplitInOrder(List<List<Long>> splits, int keys) {
        int[] order = VerifyJob.keyOrder(SEED, keys);
        Map<Integer, Integer> splitOfKey = new HashMap<>();
        List<Long> all = new ArrayList<>();
        for (int s = 0; s < splits.size(); s++) {
            long previous = 0;
            for (long n : splits.get(s)) {
                assertThat(n).as("ascending in split %d", s).isGreaterThan(previous);
                previous = n;
                int key = VerifyJob.input(n, order).key();
                assertThat(splitOfKey.merge(key, s, (a, b) -> a))
                        .as("split of key %d", key)
                        .isEqualTo(s);
                all.add(n);
            }
        }
        assertThat(all).hasSize((int) N).doesNotHaveDuplicates();
        assertThat(splitOfKey).hasSize(keys);
    }

    @ParameterizedTest(name = "{0} keys")
    @ValueSource(ints = {6, 50, 100})
    void theLogHoldsEachKeyInOnePartitionInOrderAndPartitionsGrow(int keys) throws Exception {
        VerifyInput.write("log", dir, N, keys, SEED);
        List<List<Long>> partitions = new ArrayList<>();
        try (DurableLog log = DurableLog.open(dir, LogOptions.defaults())) {
            for (int p = 0; p < VerifyInput.LOG_PARTITIONS; p++) {
                List<Long> numbers = new ArrayList<>();
                for (LogRecord record : log.read(VerifyInput.TOPIC, p, 0, (int) N)) {
                    numbers.add(Codecs.LONG.fromBytes(record.payload()));
                }
                partitions.add(numbers);
            }
        }
        assertEachKeyInOneSplitInOrder(partitions, keys);
        for (int p = 1; p < partitions.size(); p++) {
            assertThat(partitions.get(p).size())
                    .as("partition %d", p)
                    .isGreaterThanOrEqualTo(partitions.get(p - 1).size())
                    .isPositive();
        }
        assertThat(VerifyInput.splitCount("log", dir, N, keys))
                .isEqualTo(VerifyInput.LOG_PARTITIONS);
    }

    @Test
    void filesHoldOneKeyEachInOrderInSplitsOfGrowingSize() throws Exception {
        int keys = 50;
        VerifyInput.write("files", dir, N, keys, SEED);
        int[] order = VerifyJob.keyOrder(SEED, keys);
        List<Path> files;
        try (Stream<Path> listing = Files.list(dir)) {
            files = listing.toList();
        }
        assertThat(files).hasSize(keys);
        List<Long> all = new ArrayList<>();
        int[] keysInSplit = new int[VerifyInput.LOG_PARTITIONS];
        for (Path file : files) {
            List<Long> numbers = new ArrayList<>();
            for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                numbers.add(Long.parseLong(line));
            }
            assertThat(numbers).as(file.toString()).isSorted().doesNotHaveDuplicates();
            assertThat(numbers.stream().map(n -> VerifyJob.input(n, order).key()).distinct())
                    .as("keys in " + file)
                    .hasSize(1);
            all.addAll(numbers);
            // The file source's split i of n reads the names that hash to i.
            String name = file.getFileName().toString();
            keysInSplit[Math.floorMod(name.hashCode(), VerifyInput.LOG_PARTITIONS)]++;
        }
        assertThat(all).hasSize((int) N).doesNotHaveDuplicates();
        for (int p = 0; p < VerifyInput.LOG_PARTITIONS; p++) {
            assertThat(keysInSplit[p])
                    .as("keys in split " + p)
                    .isEqualTo(VerifyInput.logShare(p, keys));
        }
        assertThat(keysInSplit[0]).isLessThan(keysInSplit[VerifyInput.LOG_PARTITIONS - 1]);
        assertThat(VerifyInput.splitCount("files", dir, N, keys))
                .isEqualTo(VerifyInput.LOG_PARTITIONS);
    }

    @ParameterizedTest(name = "{0} keys")
    @ValueSource(ints = {50, 48, 7})
    void theSequenceStripesEachKeyIntoOneSplit(int keys) {
        int splits = VerifyInput.sequenceSplits(keys);
        assertThat(keys % splits).isZero();
        List<List<Long>> striped = new ArrayList<>();
        for (int s = 0; s < splits; s++) {
            striped.add(new ArrayList<>());
        }
        for (long n = 1; n <= N; n++) {
            striped.get((int) ((n - 1) % splits)).add(n);
        }
        assertEachKeyInOneSplitInOrder(striped, keys);
    }

    @Test
    void tooFewKeysForTheLogOrAnUnknownSourceIsRefused() {
        assertThatThrownBy(() -> VerifyInput.check("log", 5))
                .hasMessage("--source log needs at least 6 keys, not 5");
        assertThatThrownBy(() -> VerifyInput.check("pulsar", 50))
                .hasMessage("unknown source 'pulsar'; use sequence, log, files or kafka");
        assertThatThrownBy(() -> VerifyInput.check("kafka", 5))
                .hasMessage("--source kafka needs at least 6 keys, not 5");
    }

    @Test
    void moreKeysOrRecordsThanTheVerifierCanHoldAreRefusedBeforeAnythingIsAllocated() {
        VerifyInput.checkSizes(VerifyInput.MAX_RECORDS, VerifyInput.MAX_KEYS);
        assertThatThrownBy(() -> VerifyInput.checkSizes(1, 2_000_000_000))
                .hasMessageStartingWith("--keys must be within 1..1000000")
                .hasMessageEndingWith("not 2000000000");
        assertThatThrownBy(() -> VerifyInput.checkSizes(VerifyInput.MAX_RECORDS + 1, 100))
                .hasMessageStartingWith("--records must be within 1..10000000");
    }
}
