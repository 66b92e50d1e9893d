package dev.weir.testing;

import dev.weir.api.DataStream;
import dev.weir.api.codec.Codecs;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The job the recovery tests run: numbers keyed by {@code n % K}, a count and sum per key in one
 * {@code ValueState}, each update emitted as {@code (key, count, sum)}.
 *
 * <p>When every key's numbers arrive in increasing order (one split per key, which holds when the
 * source's splits stripe the numbers and K is a multiple of the split count), the c-th update of a
 * key has exactly one correct sum. So {@link #check} proves state was exactly-once even through a
 * sink that repeats output: a record applied twice or skipped makes some line's sum wrong, and a
 * lost tail makes a key's largest count too small.
 */
public final class KeyedCountJob {
    private KeyedCountJob() {}

    /** One update of a key's state. */
    public record Update(long key, long count, long sum) {
        public String toLine() {
            return key + "," + count + "," + sum;
        }

        /** Parses a line written by {@link #toLine}; null if it is not one (a torn write). */
        public static Update parse(String line) {
            String[] parts = line.split(",");
            if (parts.length != 3) {
                return null;
            }
            try {
                return new Update(
                        Long.parseLong(parts[0]),
                        Long.parseLong(parts[1]),
                        Long.parseLong(parts[2]));
            } catch (NumberFormatException e) {
                return null;
            }
        }
    }

    /** The state per key. */
    public record CountSum(long count, long sum) {}

    /** Adds the keyed count-and-sum step to {@code numbers}. */
    public static DataStream<Update> apply(DataStream<Long> numbers, long keys) {
        return numbers.keyBy(n -> n % keys)
                .<CountSum, Update>process(
                        "count-sum",
                        Codecs.record(CountSum.class),
                        (key, n, state, out) -> {
                            CountSum current = state.value();
                            CountSum next =
                                    current == null
                                            ? new CountSum(1, n)
                                            : new CountSum(current.count() + 1, current.sum() + n);
                            state.update(next);
                            out.collect(new Update(key, next.count(), next.sum()));
                        });
    }

    /** What {@link #check} found. */
    public record Verdict(List<String> problems, long updates, long distinctUpdates) {
        public boolean ok() {
            return problems.isEmpty();
        }
    }

    /**
     * Checks {@code updates} of the numbers {@code 1..n} keyed by {@code n % keys}: every update's
     * sum is the sum of the key's first {@code count} numbers, and every key reached its full
     * count.
     */
    public static Verdict check(Collection<Update> updates, long n, long keys) {
        List<String> problems = new ArrayList<>();
        Map<Long, Long> maxCount = new HashMap<>();
        java.util.Set<Update> distinct = new java.util.HashSet<>();
        for (Update update : updates) {
            distinct.add(update);
            long key = update.key();
            long first = key == 0 ? keys : key;
            long c = update.count();
            long expectedSum = c * first + keys * (c - 1) * c / 2;
            if (c < 1 || expectedSum != update.sum()) {
                if (problems.size() < 10) {
                    problems.add(
                            "key "
                                    + key
                                    + " count "
                                    + c
                                    + " has sum "
                                    + update.sum()
                                    + " but the first "
                                    + c
                                    + " numbers of the key sum to "
                                    + expectedSum
                                    + " (a record was applied twice or skipped)");
                }
            }
            maxCount.merge(key, c, Math::max);
        }
        for (long key = 0; key < keys; key++) {
            long first = key == 0 ? keys : key;
            long expectedCount = first > n ? 0 : (n - first) / keys + 1;
            long seen = maxCount.getOrDefault(key, 0L);
            if (seen != expectedCount && problems.size() < 20) {
                problems.add(
                        "key "
                                + key
                                + " reached count "
                                + seen
                                + " but has "
                                + expectedCount
                                + " numbers");
            }
        }
        return new Verdict(problems, updates.size(), distinct.size());
    }
}
