package dev.weir.internal.runtime;

import dev.weir.api.state.KeyedStateBackend;
import dev.weir.internal.checkpoint.RestoredCheckpoint;
import dev.weir.internal.operators.OperatorContext;
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
    /** A failed attempt's closed keyed state, per operator subtask, for the next to reuse. */
    private final Map<String, KeyedStateBackend> previous = new ConcurrentHashMap<>();

    /** Keeps a failed attempt's closed keyed state for the next attempt of its subtask. */
    void putPrevious(OperatorContext context, KeyedStateBackend closed) {
        previous.put(key(context), closed);
    }

    /** The closed keyed state of this subtask's failed attempt, once; null if none. */
    KeyedStateBackend takePrevious(String operatorName, int subtask, int parallelism) {
        return previous.remove(operatorName + "#" + subtask + "/" + parallelism);
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
