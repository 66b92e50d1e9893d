package dev.weir.api.log;

/**
 * A record as stored in a log partition, transaction markers included: what {@link
 * DurableLog#readUncommitted} returns (Kafka's {@code read_uncommitted}). Most readers want {@link
 * DurableLog#read}, which returns committed records only.
 *
 * @param offset its position in the partition, from 0
 * @param kind plain data, a transaction's data, or a transaction marker
 * @param transaction the transaction id ({@code -1} for plain data)
 * @param payload its bytes (empty for markers written before transaction identities, else the
 *     marker's description of the transaction)
 */
public record LogEntry(long offset, Kind kind, long transaction, byte[] payload) {
    /** What a stored record is. */
    public enum Kind {
        /** A plain record, committed when appended. */
        DATA,
        /** A record of the transaction in {@link #transaction()}: visible once it commits. */
        TRANSACTION_DATA,
        /** The start of a transaction's batch. */
        BEGIN,
        /** The end of a transaction's batch: its records are committed. */
        COMMIT
    }
}
