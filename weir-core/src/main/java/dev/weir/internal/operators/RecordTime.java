package dev.weir.internal.operators;

/**
 * The timestamp of the record a task is processing now, shared by the operators of its chain and
 * its writers, so records carry their time without a wrapper object: a writer copies it into its
 * batch's timestamp column, a reader of a batch sets it before handing each record on, and an
 * operator's output records inherit it. Single-threaded: the task's.
 */
public final class RecordTime {
    /** No timestamp: the record has no event time. */
    public static final long NONE = Long.MIN_VALUE;

    /** The current record's timestamp, or {@link #NONE}. */
    public long timestamp = NONE;
}
