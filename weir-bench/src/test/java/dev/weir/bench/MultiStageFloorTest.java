package dev.weir.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The hand-written multi-stage job maps and filters every record once, sums each survivor once into
 * its key, and reduces every running sum once; on one thread the reduced values are exact too.
 */
class MultiStageFloorTest {
    @Test
    void everySurvivorIsSummedOnceAndEverySumReducedOnce() throws Exception {
        long n = 300_007; // several batches per pair of threads, and a partial one at the end
        for (long keys : new long[] {1, 2, 7, 100_000}) {
            Map<Long, Long> sums = new HashMap<>();
            Map<Long, Long> reduced = new HashMap<>();
            long survivors = 0;
            for (long value = 1; value <= n; value++) {
                long mapped = value * 3;
                if (mapped % 5 == 0) {
                    continue;
                }
                survivors++;
                long sum = sums.merge(mapped % keys, mapped, Long::sum);
                reduced.merge(sum % keys, sum, Long::sum);
            }
            for (int threads = 1; threads <= 3; threads++) {
                MultiStageFloor.Result result = MultiStageFloor.run(n, keys, threads);
                assertThat(result.sums())
                        .as("%d keys over %d threads", keys, threads)
                        .isEqualTo(sums);
                assertThat(result.reducedRecords()).isEqualTo(survivors);
                if (threads == 1) {
                    // With several threads the order of a key's records, and so its running sums,
                    // depends on the interleaving; with one it is the input's.
                    assertThat(result.reduced()).isEqualTo(reduced);
                }
            }
        }
    }
}
