package dev.weir.api.state;

import java.io.Serializable;

/**
 * Makes the {@link KeyedStateBackend} of each subtask of each keyed step; set with {@code
 * Pipeline.stateBackend(...)} (default {@link StateBackends#heap()}).
 */
public interface KeyedStateBackendFactory extends Serializable {
    /**
     * A short, stable name written into checkpoints beside each section this backend writes; a
     * restore hands a section only to a backend with the same id.
     */
    String id();

    /**
     * True if this backend restores sections written by backend {@code backendId} (by default only
     * its own {@link #id()}).
     */
    default boolean reads(String backendId) {
        return id().equals(backendId);
    }

    /** Makes the backend of one subtask. */
    KeyedStateBackend create(Context context);

    /** Where the backend runs. */
    interface Context {
        /** The keyed step's name (named in error messages). */
        String stepName();

        /** The subtask's index, from 0. */
        int subtaskIndex();

        /** The step's parallelism. */
        int parallelism();

        /** The job's number of key groups. */
        int maxParallelism();

        /** The first key group this subtask owns. */
        int firstKeyGroup();

        /** The last key group this subtask owns. */
        int lastKeyGroup();

        /**
         * The closed backend of this subtask's failed attempt, whose memory this one may reuse, or
         * null. It was made by this factory.
         */
        KeyedStateBackend previousAttempt();
    }
}
