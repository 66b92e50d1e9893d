package dev.weir.api.function;

/**
 * Receives the records a user function emits.
 *
 * <p>Only valid during the call it was passed to, on that call's thread.
 *
 * @param <T> record type
 */
@FunctionalInterface
public interface Collector<T> {
    /**
     * Emits {@code record} downstream; must not be null.
     *
     * @param record the record to emit; not null
     */
    void collect(T record);
}
