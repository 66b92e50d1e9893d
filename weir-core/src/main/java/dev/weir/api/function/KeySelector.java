package dev.weir.api.function;

import java.io.Serializable;

/**
 * Extracts the key that partitions a stream.
 *
 * <p>Must be deterministic: the same record must always give an equal key with an equal {@code
 * hashCode()}, across runs and JVMs, because the key's hash chooses the key group whose state is
 * checkpointed and restored. Strings, boxed numbers, records of those, and enums by name are safe;
 * objects relying on identity hash codes are not.
 *
 * @param <T> record type
 * @param <K> key type
 */
@FunctionalInterface
public interface KeySelector<T, K> extends Serializable {
    /**
     * Returns the key of {@code value}; must not be null.
     *
     * @param value the record
     * @return its key; not null
     * @throws Exception to fail the task; the restart strategy decides what follows
     */
    K getKey(T value) throws Exception;
}
