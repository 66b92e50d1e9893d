package dev.weir.bench.nexmark;

import static org.assertj.core.api.Assertions.assertThat;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;

/** The generator's division without a division agrees with Java's, and so do its event times. */
class DivisorProperties {
    @Property
    void quotientAndRemainderEqualJavasBelowTwoToThe53(
            @ForAll @LongRange(min = 1, max = 1L << 40) long divisor,
            @ForAll @LongRange(min = 0, max = (1L << 53) - 1) long x) {
        NexmarkGenerator.Divisor d = new NexmarkGenerator.Divisor(divisor);
        assertThat(d.quotient(x)).isEqualTo(x / divisor);
        assertThat(d.remainder(x)).isEqualTo(x % divisor);
    }

    @Property
    void quotientIsExactAtEveryMultipleAndItsNeighbours(
            @ForAll @LongRange(min = 1, max = 100_000) long divisor,
            @ForAll @LongRange(min = 0, max = (1L << 53) / 100_000 - 2) long q) {
        NexmarkGenerator.Divisor d = new NexmarkGenerator.Divisor(divisor);
        long multiple = q * divisor;
        for (long x = Math.max(multiple - 1, 0); x <= multiple + 1; x++) {
            assertThat(d.quotient(x)).isEqualTo(x / divisor);
        }
    }

    @Property
    void aNegativeOrHugeNumberFallsBackToJavasDivision(
            @ForAll @LongRange(min = 1, max = 1_000_000) long divisor, @ForAll long x) {
        NexmarkGenerator.Divisor d = new NexmarkGenerator.Divisor(divisor);
        assertThat(d.quotient(x)).isEqualTo(x / divisor);
    }

    @Property
    void theGeneratorsEventTimesAreTheConfigurations(
            @ForAll @LongRange(min = 1, max = 1_000_000) long eventsPerSecond,
            @ForAll @LongRange(min = 0, max = 1L << 40) long id) {
        NexmarkConfig config = new NexmarkConfig(1L << 41, 1, eventsPerSecond, 1_000, 10, 2, 10);
        assertThat(new NexmarkGenerator(config).timestampOf(id)).isEqualTo(config.timestampOf(id));
    }
}
