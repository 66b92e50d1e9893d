package dev.weir.api.log;

/**
 * A record read from a log partition.
 *
 * @param offset its position in the partition, from 0
 * @param payload its bytes
 */
public record LogRecord(long offset, byte[] payload) {}
