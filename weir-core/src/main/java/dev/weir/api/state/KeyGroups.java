package dev.weir.api.state;

/**
 * Maps keys to key groups and key groups to subtasks.
 *
 * <p>A key's group is a mix of its {@link #stableHash} modulo the maximum parallelism; subtask
 * {@code i} of {@code p} owns the contiguous range of groups returned by {@link #rangeStart} and
 * {@link #rangeEnd}, so state can be restored at any parallelism up to the maximum by reassigning
 * whole groups.
 *
 * <p>The hash must be the same in every JVM, or a restored key would live in another key group than
 * its records are routed to. {@code hashCode()} is, for strings, boxed numbers and records of
 * those; an enum's is its identity, so enums hash by name (and records holding enums, lists or maps
 * component by component). Keys whose hash is identity-based (a class that does not override {@code
 * hashCode}, an array) are refused by {@link #checkKey}.
 */
public final class KeyGroups {
    private KeyGroups() {}

    /** How a key class is hashed; computed once per class. */
    private enum Hashing {
        /** {@code hashCode()} is stable across JVMs. */
        NATIVE,
        /** An enum: by its name. */
        ENUM,
        /** A record with components that need {@link #stableHash}: component by component. */
        RECORD,
        /** A List, Set or Map: element by element, as its own hashCode would, stably. */
        COLLECTION,
        /** Identity-based: refused as a key. */
        IDENTITY
    }

    private static final ClassValue<Hashing> HASHING =
            new ClassValue<>() {
                @Override
                protected Hashing computeValue(Class<?> type) {
                    return hashingOf(type);
                }
            };

    private static Hashing hashingOf(Class<?> type) {
        if (type.isEnum() || (type.getSuperclass() != null && type.getSuperclass().isEnum())) {
            return Hashing.ENUM;
        }
        if (type.isArray()) {
            return Hashing.IDENTITY;
        }
        if (java.util.List.class.isAssignableFrom(type)
                || java.util.Set.class.isAssignableFrom(type)
                || java.util.Map.class.isAssignableFrom(type)) {
            return Hashing.COLLECTION;
        }
        if (type.isRecord()) {
            for (java.lang.reflect.RecordComponent component : type.getRecordComponents()) {
                Class<?> c = component.getType();
                if (c.isArray()) {
                    return Hashing.IDENTITY; // the record's equals and hashCode use its identity
                }
                if (c.isEnum()
                        || c.isRecord()
                        || c.isInterface()
                        || c == Object.class
                        || java.lang.reflect.Modifier.isAbstract(c.getModifiers())) {
                    return Hashing.RECORD; // may hold something hashed by identity
                }
                if (!c.isPrimitive() && HASHING.get(c) == Hashing.IDENTITY) {
                    return Hashing.IDENTITY; // a concrete component without its own hashCode
                }
            }
            return Hashing.NATIVE;
        }
        try {
            return type.getMethod("hashCode").getDeclaringClass() == Object.class
                    ? Hashing.IDENTITY
                    : Hashing.NATIVE;
        } catch (NoSuchMethodException e) {
            return Hashing.IDENTITY;
        }
    }

    /**
     * Refuses a key that cannot be checkpointed and restored by key group: one whose hash is
     * identity-based (so differs between JVMs), or that {@link dev.weir.api.codec.Codecs#auto()}
     * (the keys' codec in checkpoints) cannot encode. The message names the type and what to use.
     * Callers check once per key class.
     *
     * @param key a key about to be used; not null
     * @throws IllegalArgumentException if the key's type cannot be used as a key
     */
    public static void checkKey(Object key) {
        Class<?> type = key.getClass();
        if (HASHING.get(type) == Hashing.IDENTITY) {
            throw new IllegalArgumentException(
                    "key type "
                            + type.getName()
                            + " hashes by identity (it does not override hashCode, is an array,"
                            + " or is a record holding one of those), so its key group would differ in every JVM and restored"
                            + " state would be lost; key by a String, a boxed number, an enum or a"
                            + " record of those");
        }
        if (!dev.weir.api.codec.Codecs.autoEncodes(key)) {
            throw new IllegalArgumentException(
                    "key type "
                            + type.getName()
                            + " cannot be written into checkpoints by Codecs.auto(); key by a"
                            + " String, a boxed number, an enum, a java.time value, a UUID or a"
                            + " record of those");
        }
    }

    /**
     * A hash of {@code key} that is the same in every JVM (see the class comment).
     *
     * @param key the key; null hashes to 0
     * @return its hash; equal to {@code hashCode()} for strings, boxed numbers and lists of those
     * @throws IllegalArgumentException if the key nests more than 32 levels deep
     */
    public static int stableHash(Object key) {
        if (key instanceof String || key instanceof Long || key instanceof Integer) {
            return key.hashCode(); // the common keys, without a lookup
        }
        return stableHash(key, 0);
    }

    private static int stableHash(Object key, int depth) {
        if (key == null) {
            return 0;
        }
        if (depth > 32) {
            throw new IllegalArgumentException("key nested more than 32 deep (a cycle?)");
        }
        switch (HASHING.get(key.getClass())) {
            case ENUM:
                return ((Enum<?>) key).name().hashCode();
            case RECORD:
                int h = 0; // as a record's own hashCode, when its components' are stable
                for (java.lang.reflect.RecordComponent component :
                        key.getClass().getRecordComponents()) {
                    try {
                        component.getAccessor().setAccessible(true);
                        h = 31 * h + stableHash(component.getAccessor().invoke(key), depth + 1);
                    } catch (ReflectiveOperationException e) {
                        throw new IllegalArgumentException(
                                "cannot read component " + component.getName() + " of " + key, e);
                    }
                }
                return h;
            case COLLECTION:
                int c = 0;
                if (key instanceof java.util.Map<?, ?> map) {
                    for (java.util.Map.Entry<?, ?> entry : map.entrySet()) {
                        c +=
                                stableHash(entry.getKey(), depth + 1)
                                        ^ stableHash(entry.getValue(), depth + 1);
                    }
                } else if (key instanceof java.util.Set<?> set) {
                    for (Object element : set) {
                        c += stableHash(element, depth + 1);
                    }
                } else {
                    c = 1; // as List.hashCode, so lists of stable elements hash as before
                    for (Object element : (Iterable<?>) key) {
                        c = 31 * c + stableHash(element, depth + 1);
                    }
                }
                return c;
            default:
                return key.hashCode();
        }
    }

    /**
     * Returns the key group of {@code key} among {@code maxParallelism} groups.
     *
     * @param key the key
     * @param maxParallelism the job's number of key groups, at least 1
     * @return the group, from 0 to {@code maxParallelism - 1}
     */
    public static int keyGroupOf(Object key, int maxParallelism) {
        int mixed = mix(stableHash(key));
        // The same as floorMod for a power of two (the default, 128), without a division.
        return (maxParallelism & (maxParallelism - 1)) == 0
                ? mixed & (maxParallelism - 1)
                : Math.floorMod(mixed, maxParallelism);
    }

    /**
     * Returns the subtask of {@code parallelism} that owns {@code keyGroup}.
     *
     * @param keyGroup the key group, from 0 to {@code maxParallelism - 1}
     * @param maxParallelism the job's number of key groups
     * @param parallelism the step's parallelism, at most {@code maxParallelism}
     * @return the subtask index, from 0 to {@code parallelism - 1}
     */
    public static int subtaskOf(int keyGroup, int maxParallelism, int parallelism) {
        return (int) ((long) keyGroup * parallelism / maxParallelism);
    }

    /**
     * First key group owned by {@code subtask}.
     *
     * @param subtask the subtask index, from 0
     * @param maxParallelism the job's number of key groups
     * @param parallelism the step's parallelism, at most {@code maxParallelism}
     * @return the first key group in its range, inclusive
     */
    public static int rangeStart(int subtask, int maxParallelism, int parallelism) {
        return (int) (((long) subtask * maxParallelism + parallelism - 1) / parallelism);
    }

    /**
     * Last key group owned by {@code subtask}, inclusive.
     *
     * @param subtask the subtask index, from 0
     * @param maxParallelism the job's number of key groups
     * @param parallelism the step's parallelism, at most {@code maxParallelism}
     * @return the last key group in its range, inclusive
     */
    public static int rangeEnd(int subtask, int maxParallelism, int parallelism) {
        return rangeStart(subtask + 1, maxParallelism, parallelism) - 1;
    }

    /**
     * The murmur3 32-bit finaliser: spreads poor hash codes such as small longs.
     *
     * @param h a hash code
     * @return the mixed hash; the same input always gives the same output
     */
    public static int mix(int h) {
        h ^= h >>> 16;
        h *= 0x85ebca6b;
        h ^= h >>> 13;
        h *= 0xc2b2ae35;
        h ^= h >>> 16;
        return h;
    }
}
