package dev.weir.api.sink;

import dev.weir.api.Guarantee;

/**
 * A sink whose writes are upserts by a deterministic key, so rewriting a record after a replay
 * leaves the result unchanged.
 *
 * <p>It is exactly-once only if a replay writes the same value for the same key ({@link
 * #replaysWriteIdenticalValues()}): true for results that are a function of the input up to a
 * checkpoint, such as keyed running aggregates; false if values carry wall-clock time or
 * randomness. Otherwise it is at-least-once, and the analyzer says so.
 *
 * @param <T> record type
 * @param <K> key type
 */
public interface IdempotentSink<T, K> extends Sink<T> {
    /** The key a record is upserted under. */
    K keyOf(T record);

    /** True if a replayed record always carries the value the first attempt wrote. */
    boolean replaysWriteIdenticalValues();

    @Override
    default Guarantee guarantee() {
        return replaysWriteIdenticalValues() ? Guarantee.EXACTLY_ONCE : Guarantee.AT_LEAST_ONCE;
    }

    @Override
    default String limitation() {
        return replaysWriteIdenticalValues()
                ? ""
                : "idempotent, but replays may write different values for a key; make values a"
                        + " function of the input, or use a two-phase-commit sink";
    }
}
