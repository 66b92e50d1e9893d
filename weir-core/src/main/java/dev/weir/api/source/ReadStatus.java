package dev.weir.api.source;

/** What a {@link SourceReader#poll} call left behind. */
public enum ReadStatus {
    /** More records can be read right away; call again. */
    MORE_AVAILABLE,
    /** Nothing to read now (rate limit, waiting for data); call again later. */
    NOTHING_AVAILABLE,
    /** The split is exhausted and will never produce again. */
    END_OF_INPUT
}
