package dev.weir.api.state;

/**
 * One value per key.
 *
 * <p>Scoped to the key of the record being processed. Stored values must be treated as immutable
 * once passed to {@link #update}: the snapshot of a checkpoint may hold a reference to them.
 *
 * @param <T> value type
 */
public interface ValueState<T> {
    /**
     * Returns the value for the current key, or null if none was stored.
     *
     * @return the stored value, the same instance {@link #update} was given; do not change it
     */
    T value();

    /**
     * Stores {@code value} (not null) for the current key.
     *
     * @param value the new value; treat it as immutable from now on. Use {@link #clear} to remove
     * @throws NullPointerException if {@code value} is null
     * @throws IllegalStateException if called outside the processing of a record or timer
     */
    void update(T value);

    /** Removes the value for the current key. */
    void clear();
}
