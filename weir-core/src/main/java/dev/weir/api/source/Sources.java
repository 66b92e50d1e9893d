package dev.weir.api.source;

import dev.weir.internal.connectors.CollectionSource;
import dev.weir.internal.connectors.SequenceSource;
import java.util.List;

/** Built-in sources. */
public final class Sources {
    private Sources() {}

    /** The numbers {@code from..to} inclusive, one split per source subtask; replayable. */
    public static Source<Long> sequence(long from, long to) {
        return new SequenceSource(from, to, 0, 0);
    }

    /**
     * The numbers {@code from..to} inclusive in a fixed number of splits (so offsets map to the
     * same splits at any parallelism), at most {@code recordsPerSecond} in total (0 = unlimited).
     */
    public static Source<Long> sequence(long from, long to, int splits, long recordsPerSecond) {
        return new SequenceSource(from, to, splits, recordsPerSecond);
    }

    /** The elements of {@code elements}, in order, as one split; replayable. */
    public static <T> Source<T> collection(List<T> elements) {
        return new CollectionSource<>(elements);
    }
}
