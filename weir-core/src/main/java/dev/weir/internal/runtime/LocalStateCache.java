package dev.weir.internal.runtime;

import dev.weir.internal.checkpoint.RestoredCheckpoint;
import dev.weir.internal.state.HeapKeyedStateBackend;
import dev.weir.internal.state.HeapKeyedStateBackend.KeyedCopy;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Local recovery: the in-memory copies of keyed state that tasks took for their checkpoints, kept
 * for the life of the job (across restarts, not across processes). A restart that restores
 * checkpoint n into the same operator, subtask and parallelism rebuilds its keyed state from the
 * copy of n instead of decoding the checkpoint files: the copy is exactly what was serialised into
 * n (values shared and immutable, containers already copied), so the result is the same and no
 * object is decoded. The files stay the source of truth for everything else and for any other
 * restore (a new process, a savepoint at another parallelism).
 *
 * <p>It also keeps the newest completed checkpoint as the tasks' snapshots held it (positions,
 * non-keyed state, these copies): a restart restores that without reading the files back, which the
 * process itself wrote and verified on the way out.
 *
 * <p>Memory: per keyed operator subtask, the copies of the newest complete checkpoint and of those
 * in flight (arrays of references; values replaced since stay reachable until the next complete
 * checkpoint). Switch it off with {@code Pipeline.localRecovery(false)}.
 */
public final class LocalStateCache {
    private final Map<String, TreeMap<Long, KeyedCopy>> copies = new ConcurrentHashMap<>();

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

    /** Keeps the copy a task took for checkpoint {@code id}. */
    void put(OperatorContext context, long id, KeyedCopy copy) {
        TreeMap<Long, KeyedCopy> mine = copies.computeIfAbsent(key(context), k -> new TreeMap<>());
        synchronized (mine) {
            mine.put(id, copy);
        }
    }

    /** Checkpoint {@code id} is complete: older copies can no longer be restored. */
    void completed(OperatorContext context, long id) {
        TreeMap<Long, KeyedCopy> mine = copies.get(key(context));
        if (mine != null) {
            synchronized (mine) {
                mine.headMap(id).clear();
            }
        }
    }

    /** The copy for checkpoint {@code id}, or null. */
    KeyedCopy get(OperatorContext context, long id) {
        TreeMap<Long, KeyedCopy> mine = copies.get(key(context));
        if (mine == null) {
            return null;
        }
        synchronized (mine) {
            return mine.get(id);
        }
    }
}
