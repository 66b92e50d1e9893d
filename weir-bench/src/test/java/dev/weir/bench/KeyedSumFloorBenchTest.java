package dev.weir.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The hand-written keyed sum sums every record once, into the key it belongs to. */
class KeyedSumFloorBenchTest {
    @Test
    void everyRecordIsSummedOnceIntoItsKey() throws Exception {
        long n = 300_007; // several batches per pair of threads, and a partial one at the end
        for (long keys : new long[] {1, 2, 7, 100_000}) {
            Map<Long, Long> expected = new HashMap<>();
            for (long value = 1; value <= n; value++) {
                expected.merge(value % keys, value, Long::sum);
            }
            for (int threads = 1; threads <= 3; threads++) {
                assertThat(KeyedSumFloorBench.run(n, keys, threads))
                        .as("%d keys over %d threads", keys, threads)
                        .isEqualTo(expected);
            }
        }
    }
}
