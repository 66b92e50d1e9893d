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
 * range of groups. For each group {@code g} the runner finds once a few thousand ints that Flink's
 * hash sends to {@code g} ({@link #slotsPerGroup}), and gives a key of {@code g} one of them,
 * picked by other bits of its stable hash. So a key lives in the same key group, on the same
 * subtask index, on either runner, and Flink's rescaling moves whole Weir key groups; and the keys
 * of one group still spread over Flink's hash tables, which are per key group: with one hash per
 * group (as first built) every key of a group collided in one chain, and a keyed sum over 100,000
 * keys ran at a sixth of Flink's speed.
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
        int slots = hashesOfGroups.length / maxParallelism;
        // Bits of the stable hash other than those that chose the group (a different mix).
        int slot = (Integer.rotateLeft(KeyGroups.stableHash(key) * 0x9E3779B9, 13)) & (slots - 1);
        int group = KeyGroups.keyGroupOf(key, maxParallelism);
        return new WeirKey(key, hashesOfGroups[group * slots + slot]);
    }

    /**
     * How many hashes each key group gets: a power of two, up to 2,048, with at most 2^18 in all (1
     * MiB per distinct {@code maxParallelism}).
     */
    static int slotsPerGroup(int maxParallelism) {
        return Math.max(1, Math.min(2048, Integer.highestOneBit((1 << 18) / maxParallelism)));
    }

    /** The user's key. */
    Object key() {
        return key;
    }

    /**
     * For each key group {@code g}, {@link #slotsPerGroup} distinct hashes that Flink sends to it,
     * at {@code g * slots}.. (computed once per value of {@code maxParallelism}).
     */
    static int[] hashesOfGroups(int maxParallelism) {
        return HASH_OF_GROUP.computeIfAbsent(maxParallelism, WeirKey::search);
    }

    private static int[] search(int maxParallelism) {
        int slots = slotsPerGroup(maxParallelism);
        int[] hashes = new int[maxParallelism * slots];
        int[] filled = new int[maxParallelism];
        int found = 0;
        for (int h = 0; found < hashes.length; h++) {
            int group = KeyGroupRangeAssignment.computeKeyGroupForKeyHash(h, maxParallelism);
            if (filled[group] < slots) {
                hashes[group * slots + filled[group]++] = h;
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
