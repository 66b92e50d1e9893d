package dev.weir.api.state;

import java.io.DataOutput;
import java.io.IOException;

/**
 * SPI: the keyed state of one subtask of one keyed step. Weir's runtime names only this interface;
 * the heap backend ({@link StateBackends#heap()}) implements it, and so can a module (RocksDB, say)
 * that imports only Weir's API. Every implementation passes the keyed-state backend conformance
 * suite (see docs/design/005-core-shape.md, "How to add a state backend").
 *
 * <h2>How the methods are called</h2>
 *
 * All calls come from the task that runs the subtask, one at a time, except {@link
 * KeyedSnapshot#writeTo} which the checkpoint's I/O thread calls later on the snapshot:
 *
 * <ol>
 *   <li>The function declares its states ({@link KeyedStateStore}) in {@code open}.
 *   <li>On a restore, {@link #restore} once per old subtask whose key groups overlap this subtask's
 *       (or {@link #restoreLocal} with this same subtask's in-memory snapshot).
 *   <li>For each record (and timer), {@link #setCurrentKey}, then reads and writes through the
 *       state handles, which act on the current key's state.
 *   <li>At each checkpoint barrier, {@link #snapshot}: a consistent copy taken now, cheaply (the
 *       task waits for it), serialised later off the task's thread.
 *   <li>{@link #close} when the task ends.
 * </ol>
 *
 * <h2>Keys and key groups</h2>
 *
 * A key belongs to key group {@link KeyGroups#keyGroupOf(Object, int)}; a subtask owns a contiguous
 * range of groups, and a snapshot must let a restore take any sub-range of its groups (when a job
 * is rescaled, each new subtask restores its own groups from every old subtask's snapshot). Keys
 * are written with {@code Codecs.auto()} so every backend reads every key type the runtime accepts.
 *
 * <h2>Codec identity</h2>
 *
 * A snapshot records each state's {@code Codec.id()} (and a map's value codec's); a restore into a
 * state declared with a codec that cannot read it ({@code Codec.canRead}) must be refused with an
 * {@code UnrecoverableException} naming the state and both codecs, never decoded with the wrong
 * format.
 */
public interface KeyedStateBackend extends KeyedStateStore {
    /**
     * Scopes every state handle to {@code key} (not null) until the next call.
     *
     * @param key the current record's key; checked once per class by {@link KeyGroups#checkKey}
     */
    void setCurrentKey(Object key);

    /**
     * A hint before a run of records: the keys at {@code keys[from]}, {@code keys[from + step]},
     * ... below {@code to} will be made current next, in that order. A backend whose lookups miss
     * the processor's caches may start loading what those keys need, so that the misses overlap
     * instead of following one another; it must not change any state or the current key. The
     * default does nothing.
     *
     * @param keys holds the keys (and possibly other things between them)
     * @param from index of the first key
     * @param to end of the run, exclusive
     * @param step distance between two keys in {@code keys}, at least 1 (a backend may ignore the
     *     hint otherwise)
     */
    default void prefetch(Object[] keys, int from, int to, int step) {}

    /** {@return the key the handles are scoped to now, or null} */
    Object currentKey();

    /**
     * {@return the number of keys with state} A key whose every state was cleared or emptied (an
     * empty map or list is no state) is not counted, visited by {@link #forEachKey} or written to a
     * snapshot: keys that come and go must not accumulate.
     */
    int keyCount();

    /**
     * Calls {@code visitor} for every key held now, with the handles scoped to it; keys added
     * during the walk are not visited.
     *
     * @param visitor called once per key, on this thread
     * @throws Exception whatever {@code visitor} throws; the walk stops there
     */
    void forEachKey(KeyVisitor visitor) throws Exception;

    /** Visits one key in {@link #forEachKey}. */
    @FunctionalInterface
    interface KeyVisitor {
        /**
         * Visits {@code key}; every state handle is scoped to it during the call.
         *
         * @param key the key being visited
         * @throws Exception to stop the walk; it propagates out of {@link #forEachKey}
         */
        void visit(Object key) throws Exception;
    }

    /**
     * A consistent copy of the state now, for a checkpoint; later writes do not change it. Called
     * on the task: keep it cheap (the heap backend copies a few arrays).
     *
     * @return the copy; {@link KeyedSnapshot#writeTo} serialises it later on another thread
     */
    KeyedSnapshot snapshot();

    /**
     * Adds the state of key groups {@code firstKeyGroup..lastKeyGroup} from {@code section}, a
     * snapshot of this kind of backend. Values of states already declared are restored into place;
     * those of states declared later wait for their declaration (decoded with its codec then).
     *
     * @param section one old subtask's state, verified against the checkpoint's checksums
     * @param firstKeyGroup the first key group to take, inclusive
     * @param lastKeyGroup the last key group to take, inclusive
     */
    void restore(KeyedSection section, int firstKeyGroup, int lastKeyGroup);

    /**
     * Local recovery: rebuilds the state from {@code snapshot}, a snapshot this same subtask took
     * in this process for the checkpoint being restored (same key groups). Returns false, changing
     * nothing, if the backend cannot: the runtime then restores from the checkpoint's files, or,
     * for a checkpoint kept only in memory, fails the restore naming the step.
     *
     * @param snapshot what {@link #snapshot} returned on this subtask for that checkpoint
     * @return true if the state was rebuilt from it
     */
    boolean restoreLocal(KeyedSnapshot snapshot);

    /**
     * Called once when the restore is over (also when nothing was restored): drop anything kept for
     * it, such as a previous attempt's memory that was not used.
     */
    default void restoreFinished() {}

    /**
     * Releases the state. With {@code restartLikely} the backend may keep its memory for the next
     * attempt of the same subtask, which receives it through {@link
     * KeyedStateBackendFactory.Context#previousAttempt()}.
     *
     * @param restartLikely true if the job is about to restart this subtask after a failure
     */
    void close(boolean restartLikely);

    /** A snapshot, written by the checkpoint's I/O thread. */
    interface KeyedSnapshot {
        /** {@return the number of keys in the snapshot} */
        int keyCount();

        /**
         * Writes the snapshot in the backend's format (what {@link #restore} reads). May take long;
         * should stop with {@link java.io.InterruptedIOException} when its thread is interrupted (a
         * failed job abandons its checkpoints).
         *
         * @param out where to write; the runtime checksums and frames what is written
         * @throws IOException if writing fails or is interrupted; the checkpoint then fails
         */
        void writeTo(DataOutput out) throws IOException;
    }
}
