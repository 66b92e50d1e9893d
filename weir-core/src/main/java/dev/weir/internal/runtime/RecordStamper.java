package dev.weir.internal.runtime;

/**
 * Gives a source's records their event time as they are handed on, one record at a time: the
 * split's timestamp assigner and watermark generator ({@link SourceDriver}). A {@link RecordWriter}
 * that is the source's only output calls it itself for each record it takes, so the record's path
 * from the reader to the channel batch is the same chain of calls with event time as without
 * (design 009, rule 5).
 *
 * <p>Single-threaded: only the source task calls it.
 */
abstract class RecordStamper {
    /**
     * Set by {@link #stamp} when the record's event raised the split's watermark: whoever handed
     * the record on calls {@link #emitRaised} once the record is out, so the watermark follows it.
     */
    boolean raised;

    /** Assigns {@code record} its timestamp and shows it to the watermark generator. */
    abstract long stamp(Object record);

    /** Emits the watermark {@link #stamp} raised, after the record it was raised on. */
    abstract void emitRaised();
}
