package dev.weir.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.bench.nexmark.NexmarkConfig;
import dev.weir.bench.nexmark.NexmarkGenerator;
import org.junit.jupiter.api.Test;

/** The generator-alone ceiling generates every event once, over its stripes, as the sources do. */
class NexmarkGeneratorBenchTest {
    @Test
    void theStripesTogetherGenerateEveryEventOnce() throws Exception {
        NexmarkConfig config = NexmarkConfig.defaults(50_017, 7);
        NexmarkGenerator one = new NexmarkGenerator(config);
        long bids = 0;
        for (long i = 0; i < config.events(); i++) {
            if (one.event(i).bid() != null) {
                bids++;
            }
        }
        assertThat(bids).isBetween(45_000L, 47_000L);
        for (int threads = 1; threads <= 3; threads++) {
            assertThat(NexmarkGeneratorBench.generate(config, threads))
                    .as("bids over %d stripes", threads)
                    .isEqualTo(bids);
        }
    }
}
