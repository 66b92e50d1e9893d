package dev.weir.internal.log;

/** Receives records read from a partition without copying their payload. */
@FunctionalInterface
public interface RecordVisitor {
    /**
     * One record; {@code buffer[payloadOffset .. payloadOffset + length)} is valid only during the
     * call.
     */
    void accept(
            long offset,
            byte attributes,
            long transaction,
            byte[] buffer,
            int payloadOffset,
            int length)
            throws Exception;
}
