package dev.weir.internal.runtime;

import dev.weir.internal.checkpoint.RestoredCheckpoint;
import dev.weir.internal.state.HeapKeyedStateBackend;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Local recovery, kept for the life of the job (across restarts, not across processes): the newest
 * checkpoint this job completed, as the tasks' snapshots held it when its files were written
 * (positions, non-keyed state, and the copies of keyed state — values shared and immutable,
 * containers already copied), and the arrays a failed attempt's keyed state released. A restart
 * whose newest complete checkpoint is that one restores it without reading the files back, which
 * the process itself wrote and verified on the way out; every other restore (a new process, a
 * rescale, a savepoint) reads the files.
 *
 * <p>Memory: the keyed copies of the newest complete checkpoint (arrays of references; values
 * replaced since stay reachable until the next one completes) and, until the restart has restored,
 * the failed attempt's arrays. Switch it off with {@code Pipeline.localRecovery(false)}.
 */
public final class LocalStateCache {
    /** Arrays a failed attempt's keyed state released, per operator subtask. */
    private final Map<String, HeapKeyedStateBackend.Spare> spares = new ConcurrentHashMap<>();

    /** Keeps the arrays a failed attempt's keyed state released for the next attempt. */
    void putSpare(OperatorContext context, HeapKeyedStateBackend.Spare spare) {
        spares.put(key(context), spare);
    }

    /** The spare arrays for this operator subtask, once; null if none. */
    HeapKeyedStateBackend.Spare takeSpare(OperatorContext context) {
        return spares.remove(key(context));
    }

    /** The newest checkpoint completed by this job, as built from its snapshots, or null. */
    private volatile RestoredCheckpoint latest;

    /** Checkpoint {@code checkpoint} is complete; a restart can restore it from memory. */
    void completed(RestoredCheckpoint checkpoint) {
        latest = checkpoint;
    }

    /**
     * The newest checkpoint this job completed, if it is the one in {@code directory}: what a
     * restart restores instead of reading the files back. Null otherwise.
     */
    RestoredCheckpoint inMemory(java.nio.file.Path directory) {
        RestoredCheckpoint checkpoint = latest;
        return checkpoint != null && checkpoint.path().equals(directory) ? checkpoint : null;
    }

    private static String key(OperatorContext context) {
        return context.operatorName() + "#" + context.subtaskIndex() + "/" + context.parallelism();
    }
}
