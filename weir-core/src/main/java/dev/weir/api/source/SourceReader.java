package dev.weir.api.source;

import dev.weir.api.function.Collector;

/**
 * Reads one split.
 *
 * <h2>How the methods are called</h2>
 *
 * On the source task's thread only: optionally {@link #seek} once (on restore), then {@link #poll}
 * repeatedly, with {@link #position} read between polls when a checkpoint barrier is emitted, and
 * finally {@link #close}. {@code poll} must not block for long: return {@link
 * ReadStatus#NOTHING_AVAILABLE} instead, and the task will call again.
 *
 * @param <T> record type
 */
public interface SourceReader<T> extends AutoCloseable {
    /**
     * Emits at most {@code maxRecords} records into {@code out}.
     *
     * @param out receives the records; valid only during this call
     * @param maxRecords the most records to emit in this call, at least 1
     * @return whether to call again at once, later, or never (the split is done)
     * @throws Exception if reading fails; the task fails and the job restarts from its last
     *     checkpoint, if its restart policy allows
     */
    ReadStatus poll(Collector<T> out, int maxRecords) throws Exception;

    /**
     * Returns the position after the last record emitted; the checkpoint stores it.
     *
     * @return the position a restore passes to {@link #seek}; never negative
     */
    long position();

    /**
     * Moves the reader so the next record read is the one at {@code position}. Only called for
     * replayable sources.
     *
     * @param position a value {@link #position} returned before
     * @throws Exception if the reader cannot get there (the data was deleted, say); the restore
     *     fails
     */
    void seek(long position) throws Exception;

    /**
     * State beyond {@link #position} that a checkpoint must keep (such as which files are done), or
     * null if the position says it all.
     *
     * @return the extra state, or null; the default returns null
     * @throws Exception if the state cannot be taken; the checkpoint fails
     */
    default byte[] snapshotState() throws Exception {
        return null;
    }

    /**
     * Restores what {@link #snapshotState} returned; called before {@link #seek}.
     *
     * @param state the bytes a checkpoint kept; only called when they were not null
     * @throws Exception if the state cannot be read; the restore fails
     */
    default void restoreState(byte[] state) throws Exception {}

    /**
     * How far the reader is behind the end of its split now: records (or offsets) between {@link
     * #position} and the end of what the input holds, or -1 if the reader cannot tell (the
     * default). Only for metrics: called on the source task's thread between polls, at most every
     * 100 ms, so it must be cheap and must not block (answer from what the reader already knows,
     * such as a durable log's published end offset or a consumer's fetched high watermark).
     *
     * @return records (or offsets) still to read, or -1 if unknown
     */
    default long lag() {
        return -1;
    }

    @Override
    default void close() throws Exception {}
}
