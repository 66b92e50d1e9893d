package dev.weir.internal.state;

/**
 * Maps keys to key groups and key groups to subtasks.
 *
 * <p>A key's group is a mix of its {@code hashCode()} modulo the maximum parallelism; subtask
 * {@code i} of {@code p} owns the contiguous range of groups returned by {@link #rangeStart} and
 * {@link #rangeEnd}, so state can be restored at any parallelism up to the maximum by reassigning
 * whole groups.
 */
public final class KeyGroups {
    private KeyGroups() {}

    /** Returns the key group of {@code key} among {@code maxParallelism} groups. */
    public static int keyGroupOf(Object key, int maxParallelism) {
        int mixed = mix(key.hashCode());
        // The same as floorMod for a power of two (the default, 128), without a division.
        return (maxParallelism & (maxParallelism - 1)) == 0
                ? mixed & (maxParallelism - 1)
                : Math.floorMod(mixed, maxParallelism);
    }

    /** Returns the subtask of {@code parallelism} that owns {@code keyGroup}. */
    public static int subtaskOf(int keyGroup, int maxParallelism, int parallelism) {
        return (int) ((long) keyGroup * parallelism / maxParallelism);
    }

    /** First key group owned by {@code subtask}. */
    public static int rangeStart(int subtask, int maxParallelism, int parallelism) {
        return (int) (((long) subtask * maxParallelism + parallelism - 1) / parallelism);
    }

    /** Last key group owned by {@code subtask}, inclusive. */
    public static int rangeEnd(int subtask, int maxParallelism, int parallelism) {
        return rangeStart(subtask + 1, maxParallelism, parallelism) - 1;
    }

    /** The murmur3 32-bit finaliser: spreads poor hash codes such as small longs. */
    static int mix(int h) {
        h ^= h >>> 16;
        h *= 0x85ebca6b;
        h ^= h >>> 13;
        h *= 0xc2b2ae35;
        h ^= h >>> 16;
        return h;
    }
}
