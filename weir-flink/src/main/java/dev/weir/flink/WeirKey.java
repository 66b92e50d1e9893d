package dev.weir.flink;

import dev.weir.api.state.KeyGroups;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;

/**
 * A Weir key as Flink's keyed streams see it: equal by the user's key, with a {@link #hashCode()}
 * chosen so that Flink puts it into the key group Weir's {@link KeyGroups#keyGroupOf} gives it.
 *
 * <p>Flink derives a key's group from a murmur hash of {@code hashCode()}, Weir from its own mix of
 * {@link KeyGroups#stableHash}; both then give subtask {@code i} of {@code p} the same contiguous
 * range of groups. For each group {@code g} the runner picks once the smallest non-negative int
 * that Flink's hash sends to {@code g}, and uses it as the hash of every key in {@code g}. So a key
 * lives in the same key group, on the same subtask index, on either runner, and Flink's rescaling
 * moves whole Weir key groups.
 */
final class WeirKey {
    private static final Map<Integer, int[]> HASH_OF_GROUP = new ConcurrentHashMap<>();

    private final Object key;
    private final int hash;

    private WeirKey(Object key, int hash) {
        this.key = key;
        this.hash = hash;
    }

    /** Wraps {@code key} for a job with {@code maxParallelism} key groups. */
    static WeirKey of(Object key, int maxParallelism) {
        return of(key, maxParallelism, hashesOfGroups(maxParallelism));
    }

    /**
     * Wraps {@code key} with the hashes {@link #hashesOfGroups} returned for {@code
     * maxParallelism}: the per-record form, without the look-up.
     */
    static WeirKey of(Object key, int maxParallelism, int[] hashesOfGroups) {
        return new WeirKey(key, hashesOfGroups[KeyGroups.keyGroupOf(key, maxParallelism)]);
    }

    /** The user's key. */
    Object key() {
        return key;
    }

    /** For each key group, the hash that Flink sends to it (computed once per value). */
    static int[] hashesOfGroups(int maxParallelism) {
        return HASH_OF_GROUP.computeIfAbsent(maxParallelism, WeirKey::search);
    }

    private static int[] search(int maxParallelism) {
        int[] hashes = new int[maxParallelism];
        java.util.Arrays.fill(hashes, -1);
        int found = 0;
        for (int h = 0; found < maxParallelism; h++) {
            int group = KeyGroupRangeAssignment.computeKeyGroupForKeyHash(h, maxParallelism);
            if (hashes[group] < 0) {
                hashes[group] = h;
                found++;
            }
        }
        return hashes;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof WeirKey that && key.equals(that.key);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public String toString() {
        return String.valueOf(key);
    }
}
