package dev.weir.bench.nexmark;

import java.io.Serializable;

/**
 * The parameters of a Nexmark run, the same for both engines: how many events, from which seed, how
 * fast event time advances, how far out of order events come, and the queries' window sizes.
 *
 * @param events events generated, numbered 0 to events - 1
 * @param seed seed of every event's content (an event depends on the seed and its number only)
 * @param eventsPerSecond events per second of event time (10,000 in the Nexmark defaults)
 * @param outOfOrderGroup events are shuffled within groups of this many consecutive numbers, so
 *     their timestamps are out of order by less than the group's span of event time
 * @param windowMs tumbling windows (q7, q8) and the sliding window's size (q5)
 * @param slideMs the sliding window's slide (q5)
 * @param sessionGapMs the session gap (q11)
 */
public record NexmarkConfig(
        long events,
        long seed,
        long eventsPerSecond,
        int outOfOrderGroup,
        long windowMs,
        long slideMs,
        long sessionGapMs)
        implements Serializable {
    /** Event time of event number 0: 2026-01-01T00:00:00Z. */
    public static final long BASE_TIME_MS = 1_767_225_600_000L;

    /** Validates the parameters. */
    public NexmarkConfig {
        if (events < 0 || eventsPerSecond < 1 || outOfOrderGroup < 1) {
            throw new IllegalArgumentException(
                    "nexmark: events >= 0, eventsPerSecond >= 1 and outOfOrderGroup >= 1, got "
                            + this);
        }
        if (outOfOrderGroup % NexmarkGenerator.SHUFFLE_PRIME == 0) {
            throw new IllegalArgumentException(
                    "nexmark: outOfOrderGroup must not be a multiple of "
                            + NexmarkGenerator.SHUFFLE_PRIME
                            + " (the shuffle would not be a permutation)");
        }
        if (windowMs < 1 || slideMs < 1 || slideMs > windowMs || sessionGapMs < 1) {
            throw new IllegalArgumentException(
                    "nexmark: windows need 1 <= slideMs <= windowMs and sessionGapMs >= 1");
        }
    }

    /**
     * The Nexmark defaults for {@code events} events: 10,000 events per second of event time,
     * groups of 1,000 (up to 100 ms out of order), 10 s windows sliding every 2 s, 10 s sessions.
     */
    public static NexmarkConfig defaults(long events, long seed) {
        return new NexmarkConfig(events, seed, 10_000, 1_000, 10_000, 2_000, 10_000);
    }

    /**
     * The bound of out-of-orderness for the watermark strategy: no event comes later than this
     * after an event with a larger timestamp in the same split.
     */
    public long maxOutOfOrdernessMs() {
        return (outOfOrderGroup * 1000L + eventsPerSecond - 1) / eventsPerSecond;
    }

    /** Event time of the event with id {@code eventId}. */
    public long timestampOf(long eventId) {
        return BASE_TIME_MS + eventId * 1000 / eventsPerSecond;
    }
}
