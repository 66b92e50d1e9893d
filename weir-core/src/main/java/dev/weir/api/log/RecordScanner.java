package dev.weir.api.log;

/**
 * Receives the records of a {@link DurableLog#scan} without copying them: the payload is handed as
 * a slice of the reader's buffer.
 *
 * <p>Called on the thread that called {@code scan}, once per committed record, in offset order.
 * {@code buffer[at .. at + length)} is valid only during the call: the buffer is reused for the
 * following records, so copy what must outlive it. An exception thrown here ends the scan and
 * propagates to the caller of {@code scan}.
 */
@FunctionalInterface
public interface RecordScanner {
    /**
     * One committed record.
     *
     * @param offset its position in the partition
     * @param buffer holds the payload; valid only during this call, and never to be written
     * @param at where the payload starts in {@code buffer}
     * @param length the payload's length in bytes
     */
    void record(long offset, byte[] buffer, int at, int length);
}
