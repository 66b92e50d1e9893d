package dev.weir.internal.runtime;

/**
 * A batch on a keyed edge: records interleaved with the keys the producer extracted to route them,
 * {@code [record0, key0, record1, key1, ...]}. The consumer is the keyed operator of the same
 * {@code keyBy}, so it takes the key from here instead of running the key selector a second time.
 *
 * @param pairs records and their keys, interleaved; the length is exactly twice the record count
 * @param timestamps each record's timestamp (see {@link RecordTime}), or null on an edge that
 *     carries no time
 */
record KeyedBatch(Object[] pairs, long[] timestamps) {}
