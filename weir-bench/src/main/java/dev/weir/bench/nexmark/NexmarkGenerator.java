package dev.weir.bench.nexmark;

/**
 * The Nexmark event generator (after the benchmark of Tucker et al., "NEXMark – A Benchmark for
 * Queries over Data Streams", in the form Apache Beam and Flink's Nexmark suites generate it):
 * people, auctions and bids in the proportion 1 : 3 : 46, each event a pure function of the seed
 * and its number, so any reader can start anywhere and two engines see the same events.
 *
 * <h2>Which event a number gives</h2>
 *
 * Event number {@code n} is first shuffled within its group of {@link
 * NexmarkConfig#outOfOrderGroup} consecutive numbers (a permutation, {@code n * 953 mod group}),
 * giving the event id; the id's place in each run of 50 ids says the kind (1 person, 3 auctions, 46
 * bids), its timestamp is {@link NexmarkConfig#timestampOf}, and its content comes from a random
 * stream seeded by the seed and the id. Reading numbers in order thus gives timestamps out of order
 * by less than a group's span. Auctions are sold mostly by "hot" sellers and bids go mostly to hot
 * auctions from hot bidders, the rest to the most recent people and auctions (with a small lead, so
 * a bid may name an auction not generated yet), as in the original generator.
 *
 * <p>Strings are drawn from fixed tables rather than built per event, and events carry no padding:
 * the generator costs both engines the same, and little. Not thread-safe: one per reader.
 */
public final class NexmarkGenerator {
    /** Ids of people start here. */
    public static final long FIRST_PERSON_ID = 1000;

    /** Ids of auctions start here. */
    public static final long FIRST_AUCTION_ID = 1000;

    /** Categories are 10 to 14. */
    public static final long FIRST_CATEGORY_ID = 10;

    static final int NUM_CATEGORIES = 5;
    static final int PERSON_PROPORTION = 1;
    static final int AUCTION_PROPORTION = 3;
    static final int BID_PROPORTION = 46;
    static final int TOTAL_PROPORTION = PERSON_PROPORTION + AUCTION_PROPORTION + BID_PROPORTION;
    static final int SHUFFLE_PRIME = 953;

    private static final int ACTIVE_PEOPLE = 1000;
    private static final int PERSON_ID_LEAD = 10;
    private static final int IN_FLIGHT_AUCTIONS = 100;
    private static final int AUCTION_ID_LEAD = 10;
    private static final int HOT_SELLERS_ONE_IN = 4;
    private static final int HOT_SELLER_STRIDE = 100;
    private static final int HOT_AUCTIONS_ONE_IN = 2;
    private static final int HOT_AUCTION_STRIDE = 100;
    private static final int HOT_BIDDERS_ONE_IN = 4;
    private static final int HOT_BIDDER_STRIDE = 100;

    private static final String[] FIRST_NAMES = {
        "Peter", "Paul", "Luke", "John", "Saul", "Vicky", "Kate", "Julie", "Sarah", "Deiter",
        "Walter"
    };
    private static final String[] LAST_NAMES = {
        "Shultz", "Abrams", "Spencer", "White", "Bartels", "Walton", "Smith", "Jones", "Noris"
    };
    private static final String[] STATES = {"AZ", "CA", "ID", "OR", "WA", "WY"};
    private static final String[] CITIES = {
        "Phoenix",
        "Los Angeles",
        "San Francisco",
        "Boise",
        "Portland",
        "Bend",
        "Redmond",
        "Seattle",
        "Kent",
        "Cheyenne"
    };
    private static final String[] CHANNELS = {"Google", "Facebook", "Baidu", "Apple", "channel-7"};
    private static final String[] NAMES = new String[FIRST_NAMES.length * LAST_NAMES.length];
    private static final String[] EMAILS = new String[NAMES.length];
    private static final String[] CARDS = new String[64];
    private static final String[] ITEMS = new String[256];
    private static final String[] DESCRIPTIONS = new String[256];

    /** Steps of the price table: prices between two steps are interpolated. */
    private static final int PRICE_STEP_BITS = 10;

    private static final int PRICE_STEPS = 1 << PRICE_STEP_BITS;

    /** The bits of a random value below the step's that place a price within its step. */
    private static final long FRACTION_MASK = (1L << (64 - PRICE_STEP_BITS)) - 1;

    private static final double FRACTION_UNIT = 1.0 / (1L << (64 - PRICE_STEP_BITS));

    /** {@code PRICES[i]} is 100 × 10^(6 i / PRICE_STEPS): cents from $1 to $1,000,000. */
    private static final double[] PRICES = new double[PRICE_STEPS + 1];

    static {
        for (int f = 0; f < FIRST_NAMES.length; f++) {
            for (int l = 0; l < LAST_NAMES.length; l++) {
                int i = f * LAST_NAMES.length + l;
                NAMES[i] = FIRST_NAMES[f] + " " + LAST_NAMES[l];
                EMAILS[i] =
                        FIRST_NAMES[f].toLowerCase(java.util.Locale.ROOT)
                                + "."
                                + LAST_NAMES[l].toLowerCase(java.util.Locale.ROOT)
                                + "@x.com";
            }
        }
        for (int i = 0; i <= PRICE_STEPS; i++) {
            PRICES[i] = Math.pow(10.0, 6.0 * i / PRICE_STEPS) * 100.0;
        }
        Rng tables = new Rng();
        tables.reset(0x6e65786d61726bL, 0);
        for (int i = 0; i < CARDS.length; i++) {
            CARDS[i] =
                    String.format(
                            java.util.Locale.ROOT,
                            "%04d %04d %04d %04d",
                            tables.nextInt(10_000),
                            tables.nextInt(10_000),
                            tables.nextInt(10_000),
                            tables.nextInt(10_000));
        }
        for (int i = 0; i < ITEMS.length; i++) {
            ITEMS[i] = tables.letters(20);
            DESCRIPTIONS[i] = tables.letters(100);
        }
    }

    private final NexmarkConfig config;
    private final Rng random = new Rng();
    private final long group;
    private final Divisor byGroup;
    private final Divisor byRate;

    /** A generator of {@code config}'s events. */
    public NexmarkGenerator(NexmarkConfig config) {
        this.config = config;
        this.group = config.outOfOrderGroup();
        this.byGroup = new Divisor(group);
        this.byRate = new Divisor(config.eventsPerSecond());
    }

    /** The configuration this generator follows. */
    public NexmarkConfig config() {
        return config;
    }

    /** The event with number {@code number} (0 to {@code events - 1}). */
    public Event event(long number) {
        long id = eventId(number);
        long time = timestampOf(id);
        random.reset(config.seed(), id);
        long rem = id % TOTAL_PROPORTION;
        if (rem < PERSON_PROPORTION) {
            return new Event(person(id, time), null, null);
        } else if (rem < PERSON_PROPORTION + AUCTION_PROPORTION) {
            return new Event(null, auction(id, time), null);
        }
        return new Event(null, null, bid(id, time));
    }

    /**
     * The id of event number {@code number}: shuffled within its group of {@code outOfOrderGroup}
     * numbers; a last group cut short by the end of the stream is left in order.
     */
    long eventId(long number) {
        long start = byGroup.quotient(number) * group;
        if (start + group > config.events()) {
            return number;
        }
        return start + byGroup.remainder(number * SHUFFLE_PRIME);
    }

    /** {@link NexmarkConfig#timestampOf}, without a division. */
    long timestampOf(long id) {
        return NexmarkConfig.BASE_TIME_MS + byRate.quotient(id * 1000);
    }

    private Person person(long id, long time) {
        int name = random.nextInt(NAMES.length);
        return new Person(
                lastBase0PersonId(id) + FIRST_PERSON_ID,
                NAMES[name],
                EMAILS[name],
                CARDS[random.nextInt(CARDS.length)],
                CITIES[random.nextInt(CITIES.length)],
                STATES[random.nextInt(STATES.length)],
                time);
    }

    private Auction auction(long id, long time) {
        long seller;
        if (random.nextInt(HOT_SELLERS_ONE_IN) > 0) {
            seller = (lastBase0PersonId(id) / HOT_SELLER_STRIDE) * HOT_SELLER_STRIDE;
        } else {
            seller = nextBase0PersonId(id);
        }
        long category = FIRST_CATEGORY_ID + random.nextInt(NUM_CATEGORIES);
        long initialBid = nextPrice();
        long reserve = initialBid + nextPrice();
        int item = random.nextInt(ITEMS.length);
        return new Auction(
                lastBase0AuctionId(id) + FIRST_AUCTION_ID,
                ITEMS[item],
                DESCRIPTIONS[item],
                initialBid,
                reserve,
                time,
                time + auctionLengthMs(id, time),
                seller + FIRST_PERSON_ID,
                category);
    }

    private Bid bid(long id, long time) {
        long auction;
        if (random.nextInt(HOT_AUCTIONS_ONE_IN) > 0) {
            auction = (lastBase0AuctionId(id) / HOT_AUCTION_STRIDE) * HOT_AUCTION_STRIDE;
        } else {
            auction = nextBase0AuctionId(id);
        }
        long bidder;
        if (random.nextInt(HOT_BIDDERS_ONE_IN) > 0) {
            bidder = (lastBase0PersonId(id) / HOT_BIDDER_STRIDE) * HOT_BIDDER_STRIDE + 1;
        } else {
            bidder = nextBase0PersonId(id);
        }
        return new Bid(
                auction + FIRST_AUCTION_ID,
                bidder + FIRST_PERSON_ID,
                nextPrice(),
                CHANNELS[random.nextInt(CHANNELS.length)],
                time);
    }

    /** The last person id (from 0) generated at or before event id {@code id}. */
    static long lastBase0PersonId(long id) {
        long epoch = id / TOTAL_PROPORTION;
        long offset = Math.min(id % TOTAL_PROPORTION, PERSON_PROPORTION - 1);
        return epoch * PERSON_PROPORTION + offset;
    }

    /** The last auction id (from 0) generated at or before event id {@code id}. */
    static long lastBase0AuctionId(long id) {
        long epoch = id / TOTAL_PROPORTION;
        long offset = id % TOTAL_PROPORTION;
        if (offset < PERSON_PROPORTION) {
            epoch--;
            offset = AUCTION_PROPORTION - 1;
        } else if (offset >= PERSON_PROPORTION + AUCTION_PROPORTION) {
            offset = AUCTION_PROPORTION - 1;
        } else {
            offset -= PERSON_PROPORTION;
        }
        return epoch * AUCTION_PROPORTION + offset;
    }

    /** One of the active people, or a few not generated yet. */
    private long nextBase0PersonId(long id) {
        long people = lastBase0PersonId(id) + 1;
        long active = Math.min(people, ACTIVE_PEOPLE);
        return people - active + random.nextLong(active + PERSON_ID_LEAD);
    }

    /** One of the auctions in flight, or a few not generated yet. */
    private long nextBase0AuctionId(long id) {
        long last = Math.max(lastBase0AuctionId(id), 0);
        long first = Math.max(last - IN_FLIGHT_AUCTIONS, 0);
        return first + random.nextLong(last - first + 1 + AUCTION_ID_LEAD);
    }

    /** Up to twice the event time it takes for {@code IN_FLIGHT_AUCTIONS} new auctions. */
    private long auctionLengthMs(long id, long time) {
        long eventsForAuctions = (long) IN_FLIGHT_AUCTIONS * TOTAL_PROPORTION / AUCTION_PROPORTION;
        long horizonMs = timestampOf(id + eventsForAuctions) - time;
        return 1 + random.nextLong(Math.max(horizonMs * 2, 1));
    }

    /**
     * A price in cents from $1 to $1,000,000, log-uniform between the table's steps (1,024 of them,
     * each 1.4 % above the one before) and uniform within a step.
     */
    private long nextPrice() {
        long bits = random.next();
        int step = (int) (bits >>> (64 - PRICE_STEP_BITS));
        double within = (bits & FRACTION_MASK) * FRACTION_UNIT;
        double low = PRICES[step];
        return (long) (low + (PRICES[step + 1] - low) * within + 0.5);
    }

    /**
     * Division of non-negative numbers below 2^53 by a fixed positive divisor, exact, through the
     * divisor's reciprocal and one correction: a double multiplication instead of a 64-bit
     * division.
     */
    static final class Divisor {
        private static final long LIMIT = 1L << 53;
        private final long divisor;
        private final double reciprocal;

        Divisor(long divisor) {
            if (divisor < 1) {
                throw new IllegalArgumentException("divisor must be positive, got " + divisor);
            }
            this.divisor = divisor;
            this.reciprocal = 1.0 / divisor;
        }

        /** {@code x / divisor}, for {@code 0 <= x < 2^53}. */
        long quotient(long x) {
            if (x < 0 || x >= LIMIT) {
                return x / divisor;
            }
            long q = (long) (x * reciprocal);
            long r = x - q * divisor;
            if (r < 0) {
                return q - 1;
            }
            return r >= divisor ? q + 1 : q;
        }

        /** {@code x % divisor}, for {@code 0 <= x < 2^53}. */
        long remainder(long x) {
            return x - quotient(x) * divisor;
        }
    }

    /** SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators"). */
    static final class Rng {
        private long state;

        void reset(long seed, long stream) {
            state = mix(seed ^ mix(stream + 0x9E3779B97F4A7C15L));
        }

        long next() {
            state += 0x9E3779B97F4A7C15L;
            return mix(state);
        }

        int nextInt(int bound) {
            return (int) nextLong(bound);
        }

        /**
         * A number from 0 to {@code bound - 1}: the top 31 bits of the next value scaled by the
         * bound (a multiplication, not a remainder), for bounds below 2^31.
         */
        long nextLong(long bound) {
            if (bound >= 1L << 31) {
                return Math.floorMod(next(), bound);
            }
            return ((next() >>> 33) * bound) >>> 31;
        }

        String letters(int length) {
            char[] chars = new char[length];
            for (int i = 0; i < length; i++) {
                chars[i] = (char) ('a' + nextInt(26));
            }
            return new String(chars);
        }

        private static long mix(long z) {
            z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
            z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
            return z ^ (z >>> 31);
        }
    }
}
