package dev.weir.internal.checkpoint;

/**
 * What a checkpoint holds for one split of a source.
 *
 * @param position the reader's position after the last record emitted before the barrier
 * @param readerState the reader's state beyond the position, or null if it has none
 * @param ended true if the split had ended (its reader returned end of input) before the barrier: a
 *     restore must not read it again, or every record of it would be counted twice
 */
public record SplitState(long position, byte[] readerState, boolean ended) {}
