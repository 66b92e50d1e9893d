package dev.weir.bench.nexmark;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.BitSet;
import org.junit.jupiter.api.Test;

/** The generator's proportions, determinism and bounded out-of-orderness. */
class NexmarkGeneratorTest {
    private static final NexmarkConfig CONFIG = NexmarkConfig.defaults(50_000, 3);

    @Test
    void fiftyThousandEventsHoldOneThousandPeopleThreeThousandAuctionsAndTheRestBids() {
        NexmarkGenerator generator = new NexmarkGenerator(CONFIG);
        long persons = 0;
        long auctions = 0;
        long bids = 0;
        for (long n = 0; n < CONFIG.events(); n++) {
            Event event = generator.event(n);
            persons += event.person() != null ? 1 : 0;
            auctions += event.auction() != null ? 1 : 0;
            bids += event.bid() != null ? 1 : 0;
        }
        assertThat(new long[] {persons, auctions, bids}).containsExactly(1_000, 3_000, 46_000);
    }

    @Test
    void anEventDependsOnlyOnTheSeedAndItsNumber() {
        NexmarkGenerator forward = new NexmarkGenerator(CONFIG);
        NexmarkGenerator backward = new NexmarkGenerator(CONFIG);
        Event[] events = new Event[1_000];
        for (int n = 0; n < events.length; n++) {
            events[n] = forward.event(n);
        }
        for (int n = events.length - 1; n >= 0; n--) {
            assertThat(backward.event(n)).isEqualTo(events[n]);
        }
        NexmarkGenerator otherSeed = new NexmarkGenerator(NexmarkConfig.defaults(50_000, 4));
        assertThat(otherSeed.event(10)).isNotEqualTo(events[10]);
    }

    @Test
    void eachStripeIsOutOfOrderButWithinTheWatermarkBound() {
        NexmarkGenerator generator = new NexmarkGenerator(CONFIG);
        for (int stripe = 0; stripe < 2; stripe++) {
            long max = Long.MIN_VALUE;
            long worst = 0;
            for (long n = stripe; n < CONFIG.events(); n += 2) {
                long time = generator.event(n).timestamp();
                max = Math.max(max, time);
                worst = Math.max(worst, max - time);
            }
            assertThat(worst).isPositive().isLessThanOrEqualTo(CONFIG.maxOutOfOrdernessMs());
        }
    }

    @Test
    void eventNumbersMapToEveryIdOnceAndTheCutShortLastGroupStaysInOrder() {
        NexmarkConfig config = NexmarkConfig.defaults(10_500, 3);
        NexmarkGenerator generator = new NexmarkGenerator(config);
        BitSet ids = new BitSet();
        for (long n = 0; n < config.events(); n++) {
            long id = generator.eventId(n);
            assertThat(id / config.outOfOrderGroup()).isEqualTo(n / config.outOfOrderGroup());
            ids.set((int) id);
            if (n >= 10_000) {
                assertThat(id).isEqualTo(n);
            }
        }
        assertThat(ids.cardinality()).isEqualTo(10_500);
        assertThat(generator.eventId(1)).isEqualTo(953);
    }

    @Test
    void pricesRunFromOneDollarToAMillionAndAreSpreadOverEveryDecade() {
        NexmarkGenerator generator = new NexmarkGenerator(CONFIG);
        long[] decades = new long[6];
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        for (long n = 0; n < CONFIG.events(); n++) {
            Bid bid = generator.event(n).bid();
            if (bid != null) {
                min = Math.min(min, bid.price());
                max = Math.max(max, bid.price());
                decades[(int) Math.min(5, Math.floor(Math.log10(bid.price() / 100.0)))]++;
            }
        }
        assertThat(min).isGreaterThanOrEqualTo(100);
        assertThat(max).isLessThanOrEqualTo(100_000_000);
        for (long decade : decades) {
            assertThat(decade)
                    .as("bids per decade of price")
                    .isBetween(46_000L / 6 - 600, 46_000L / 6 + 600);
        }
    }
}
