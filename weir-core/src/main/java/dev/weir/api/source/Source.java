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
 * <p>The source is serialisable and is built once by the user; the runtime calls {@link #splits}
 * when the job starts, then {@link #openReader} on each source subtask's thread for each split it
 * is assigned. Everything else happens in the {@link SourceReader}.
 *
 * @param <T> record type
 */
public interface Source<T> extends Serializable {
    /**
     * {@return a short name of the kind of source, such as {@code "sequence"} or {@code "socket"}}
     * Used in logs and error messages.
     */
    String kind();

    /**
     * Whether readers can seek back to any offset they reported.
     *
     * @return true if {@link SourceReader#seek} works, so a restore can replay from a checkpoint
     */
    boolean isReplayable();

    /**
     * The guarantee this source allows end to end.
     *
     * @return exactly-once for a replayable source, at-most-once otherwise (by default)
     */
    default Guarantee guarantee() {
        return isReplayable() ? Guarantee.EXACTLY_ONCE : Guarantee.AT_MOST_ONCE;
    }

    /**
     * The ids of this source's splits, deterministic for the same source and {@code parallelism}.
     *
     * @param parallelism the number of source subtasks the job runs
     * @return the split ids, in order; checkpoints store offsets by these ids, so a source whose
     *     ids do not depend on {@code parallelism} can be restored at another parallelism
     */
    List<String> splits(int parallelism);

    /**
     * Opens a reader of {@code split}, positioned at its start. Called on the source subtask's
     * thread; on a restore, {@link SourceReader#seek} follows.
     *
     * @param split one of the ids {@link #splits} returned
     * @param context where the reader runs, and its clock
     * @return a new reader; the runtime closes it
     * @throws Exception if the split cannot be opened (a missing file, a refused connection); the
     *     task fails and the job restarts or stops as its restart policy says
     */
    SourceReader<T> openReader(String split, SourceContext context) throws Exception;
}
