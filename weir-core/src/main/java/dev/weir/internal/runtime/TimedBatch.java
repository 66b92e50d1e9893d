package dev.weir.internal.runtime;

/**
 * A batch on an edge that carries event time: the records, and beside them a column of their
 * timestamps (no wrapper object per record). Edges of a pipeline that uses no event time send plain
 * {@code Object[]} batches instead.
 *
 * @param records the records
 * @param timestamps their timestamps, {@link RecordTime#NONE} where a record has none
 */
record TimedBatch(Object[] records, long[] timestamps) {}
