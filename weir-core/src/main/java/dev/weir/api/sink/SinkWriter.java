package dev.weir.api.sink;

/**
 * Writes the records that reach one sink subtask.
 *
 * <h2>How the methods are called</h2>
 *
 * On the sink task's thread only: {@link #write} for each record, {@link #finish} once at the end
 * of bounded input, {@link #close} always (also after a failure or cancel).
 *
 * @param <T> record type
 */
public interface SinkWriter<T> extends AutoCloseable {
    /**
     * Writes one record.
     *
     * @param record the record; not null
     * @throws Exception if the write fails; the task fails and the job restarts or stops as its
     *     restart policy says
     */
    void write(T record) throws Exception;

    /**
     * Called once when all input has arrived; flush here.
     *
     * @throws Exception if flushing fails; the job then fails
     */
    default void finish() throws Exception {}

    @Override
    default void close() throws Exception {}
}
