package dev.weir.internal.checkpoint;

/**
 * What a checkpoint holds for one split of a source.
 *
 * @param position the reader's position after the last record emitted before the barrier
 * @param readerState the reader's state beyond the position, or null if it has none
 * @param ended true if the split had ended (its reader returned end of input) before the barrier: a
 *     restore must not read it again, or every record of it would be counted twice
 * @param watermark the split's watermark when the source assigns event time per split ({@code
 *     Pipeline.source(name, source, watermarks)}), else {@link Long#MIN_VALUE}: a restore starts
 *     the split from it, so the source's watermark neither goes back nor jumps ahead
 */
public record SplitState(long position, byte[] readerState, boolean ended, long watermark) {
    /** A split state without a watermark. */
    public SplitState(long position, byte[] readerState, boolean ended) {
        this(position, readerState, ended, Long.MIN_VALUE);
    }
}
