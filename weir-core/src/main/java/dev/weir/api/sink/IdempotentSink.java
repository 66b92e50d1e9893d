package dev.weir.api.sink;

import dev.weir.api.Guarantee;
import java.util.List;

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
    /**
     * The key a record is upserted under. Called on the sink task's thread for every record.
     *
     * @param record the record
     * @return its key; of the records between two checkpoints, only the last per key is written
     */
    K keyOf(T record);

    /**
     * Whether a replayed record always carries the value the first attempt wrote.
     *
     * @return true to claim exactly-once; false makes the sink at-least-once
     */
    boolean replaysWriteIdenticalValues();

    /**
     * Creates the upsert writer of one sink subtask; called on that subtask's thread when the job
     * (or a restart attempt) starts.
     *
     * @param context the job, sink and subtask the writer serves
     * @return a new writer; the runtime closes it
     * @throws Exception if the writer cannot be opened; the task fails
     */
    UpsertWriter<T> createUpsertWriter(SinkContext context) throws Exception;

    /**
     * Writes upserts into the external system.
     *
     * <h2>How the methods are called</h2>
     *
     * On the sink task's thread: {@link #lastCheckpointId} once after opening; {@link #upsert} at
     * each checkpoint barrier with the records since the previous one (one per key, the last), and
     * once at the end of input.
     *
     * @param <T> record type
     */
    interface UpsertWriter<T> extends AutoCloseable {
        /**
         * Upserts {@code records} and stores {@code checkpointId} with them in one atomic step (one
         * database transaction, one file rename), so the target always knows which checkpoint its
         * data reflects. Not called when no record arrived since the previous checkpoint.
         *
         * @param records the latest record per key since the previous checkpoint
         * @param checkpointId the checkpoint they belong to; {@link Long#MAX_VALUE} for the tail of
         *     a job that runs without checkpoints
         * @throws Exception if the write fails; the task fails, and with it the checkpoint. The
         *     target must then keep the previous data and id
         */
        void upsert(List<T> records, long checkpointId) throws Exception;

        /**
         * The checkpoint id stored with the newest data, or -1 if none.
         *
         * @return the id the last {@link #upsert} stored, or -1
         * @throws Exception if the target cannot be read
         */
        long lastCheckpointId() throws Exception;

        @Override
        default void close() throws Exception {}
    }

    @Override
    default Guarantee guarantee() {
        return replaysWriteIdenticalValues() ? Guarantee.EXACTLY_ONCE : Guarantee.AT_LEAST_ONCE;
    }

    /** Not used: the runtime calls {@link #createUpsertWriter}. */
    @Override
    default SinkWriter<T> createWriter(SinkContext context) {
        throw new UnsupportedOperationException(
                "an idempotent sink is written through createUpsertWriter");
    }

    @Override
    default String limitation() {
        return replaysWriteIdenticalValues()
                ? ""
                : "idempotent, but replays may write different values for a key; make values a"
                        + " function of the input, or use a two-phase-commit sink";
    }
}
