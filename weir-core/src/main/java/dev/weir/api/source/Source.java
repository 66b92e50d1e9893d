package dev.weir.api.source;

import dev.weir.api.Guarantee;
import java.io.Serializable;
import java.util.List;

/**
 * A source of records, divided into splits that are read independently.
 *
 * <p>Splits are assigned to source subtasks round-robin: subtask {@code i} of {@code p} reads
 * splits {@code i, i + p, ...}. A <em>replayable</em> source can {@link SourceReader#seek} back to
 * a saved offset; only replayable sources give exactly-once. See {@link Sources} for built-ins.
 *
 * @param <T> record type
 */
public interface Source<T> extends Serializable {
    /** A short name of the kind of source, such as {@code "sequence"} or {@code "socket"}. */
    String kind();

    /** True if readers can seek back to any offset they reported. */
    boolean isReplayable();

    /** The guarantee this source allows end to end. */
    default Guarantee guarantee() {
        return isReplayable() ? Guarantee.EXACTLY_ONCE : Guarantee.AT_MOST_ONCE;
    }

    /**
     * The ids of this source's splits, deterministic for the same source and {@code parallelism}.
     */
    List<String> splits(int parallelism);

    /** Opens a reader of {@code split}, positioned at its start. */
    SourceReader<T> openReader(String split, SourceContext context) throws Exception;
}
