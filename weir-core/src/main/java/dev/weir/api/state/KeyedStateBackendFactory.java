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
     *
     * @return the id; never change it once checkpoints exist, or they cannot be restored
     */
    String id();

    /**
     * True if this backend restores sections written by backend {@code backendId} (by default only
     * its own {@link #id()}).
     *
     * @param backendId the id a checkpoint section was written with
     * @return whether {@link KeyedStateBackend#restore} accepts that section
     */
    default boolean reads(String backendId) {
        return id().equals(backendId);
    }

    /**
     * Makes the backend of one subtask. Called once per subtask of each keyed step when the job
     * builds its tasks, and again on every restart attempt.
     *
     * @param context the subtask and the key groups it owns
     * @return a new, empty backend, or one reusing {@link Context#previousAttempt()}'s memory
     */
    KeyedStateBackend create(Context context);

    /** Where the backend runs. */
    interface Context {
        /** {@return the keyed step's name (named in error messages)} */
        String stepName();

        /** {@return the subtask's index, from 0} */
        int subtaskIndex();

        /** {@return the step's parallelism} */
        int parallelism();

        /** {@return the job's number of key groups} */
        int maxParallelism();

        /** {@return the first key group this subtask owns} */
        int firstKeyGroup();

        /** {@return the last key group this subtask owns} */
        int lastKeyGroup();

        /**
         * The closed backend of this subtask's failed attempt, whose memory this one may reuse, or
         * null. It was made by this factory.
         *
         * @return the previous attempt's backend, or null on the first attempt
         */
        KeyedStateBackend previousAttempt();
    }
}
