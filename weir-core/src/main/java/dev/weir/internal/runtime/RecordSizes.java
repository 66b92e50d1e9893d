package dev.weir.internal.runtime;

import java.lang.reflect.RecordComponent;
import java.util.Collection;
import java.util.Map;

/**
 * Estimates the heap bytes a record holds, so channels can be bounded by bytes as well as by
 * batches: records travel by reference, so a batch's size is the size of its records.
 *
 * <p>Cheap and approximate on purpose: a writer estimates one record per batch (the first) and
 * assumes the others alike. Strings, byte arrays, boxed values, records (component by component)
 * and collections (from their first element) are measured; other objects count a flat {@value
 * #OTHER_BYTES} bytes. Errs high for strings (two bytes per char), so the bound holds for any text.
 */
final class RecordSizes {
    /** An object header and a reference to it. */
    private static final long OBJECT_BYTES = 24;

    /** An object that is not measured. */
    static final long OTHER_BYTES = 64;

    /** Records and collections nested deeper are not measured further. */
    private static final int MAX_DEPTH = 4;

    private static final ClassValue<RecordComponent[]> COMPONENTS =
            new ClassValue<>() {
                @Override
                protected RecordComponent[] computeValue(Class<?> type) {
                    RecordComponent[] components = type.getRecordComponents();
                    for (RecordComponent component : components) {
                        try {
                            component.getAccessor().setAccessible(true);
                        } catch (RuntimeException e) {
                            return null; // not accessible: count it as another object
                        }
                    }
                    return components;
                }
            };

    private RecordSizes() {}

    /** The estimated bytes of {@code value} and what it references. */
    static long estimate(Object value) {
        return estimate(value, 0);
    }

    private static long estimate(Object value, int depth) {
        if (value == null) {
            return 8;
        }
        if (value instanceof String s) {
            return OBJECT_BYTES + 24 + 2L * s.length();
        }
        if (value instanceof byte[] bytes) {
            return OBJECT_BYTES + bytes.length;
        }
        if (value instanceof Number || value instanceof Boolean || value instanceof Character) {
            return OBJECT_BYTES;
        }
        if (depth >= MAX_DEPTH) {
            return OTHER_BYTES;
        }
        if (value instanceof Record) {
            RecordComponent[] components = COMPONENTS.get(value.getClass());
            if (components == null) {
                return OTHER_BYTES;
            }
            long bytes = OBJECT_BYTES;
            for (RecordComponent component : components) {
                try {
                    bytes += estimate(component.getAccessor().invoke(value), depth + 1);
                } catch (ReflectiveOperationException | RuntimeException e) {
                    bytes += OTHER_BYTES;
                }
            }
            return bytes;
        }
        if (value instanceof Collection<?> collection) {
            int size = collection.size();
            if (size == 0) {
                return OBJECT_BYTES + 16;
            }
            Object first = collection.iterator().next();
            return OBJECT_BYTES + 16 + size * (16 + estimate(first, depth + 1));
        }
        if (value instanceof Map<?, ?> map) {
            int size = map.size();
            if (size == 0) {
                return OBJECT_BYTES + 16;
            }
            Map.Entry<?, ?> first = map.entrySet().iterator().next();
            return OBJECT_BYTES
                    + 16
                    + size
                            * (48
                                    + estimate(first.getKey(), depth + 1)
                                    + estimate(first.getValue(), depth + 1));
        }
        if (value instanceof Object[] array) {
            int length = array.length;
            return OBJECT_BYTES
                    + 8L * length
                    + (length == 0 ? 0 : length * estimate(array[0], depth + 1));
        }
        return OTHER_BYTES;
    }
}
