/**
 * The embedded durable log ({@link dev.weir.api.log.DurableLog}): topics with partitions, records
 * checksummed, transactions read committed; the replayable source and transactional sink of a
 * single machine.
 */
package dev.weir.api.log;
