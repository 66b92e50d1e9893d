package dev.weir.api.testing;

/**
 * Deliberate bugs for the self-check of a crash harness such as {@code weir verify}: each breaks
 * exactly-once in a way the harness's checker must catch, which proves the checker can see that
 * kind of failure. Switched on for a whole JVM with {@code -Dweir.bug=<id>}; never in production.
 */
public enum SeededBug {
    /** A two-phase-commit sink commits at the barrier, before the checkpoint is complete. */
    COMMIT_BEFORE_COMPLETE("commit-before-complete"),
    /** A restarted two-phase-commit sink does not abort the transactions a crash left behind. */
    SKIP_ABORT("skip-abort"),
    /** A manifest is renamed into place without forcing its directory. */
    RENAME_WITHOUT_FSYNC("rename-without-fsync"),
    /** A checkpoint directory's entry in the checkpoint root is never forced. */
    CHECKPOINT_DIRECTORY_WITHOUT_FSYNC("checkpoint-directory-without-fsync"),
    /** A restarted job restores the second newest complete checkpoint. */
    FALLBACK_OLDER("fallback-older"),
    /** A restored source reads the splits that had ended before the checkpoint again. */
    REREAD_ENDED_SPLITS("reread-ended-splits");

    private final String id;

    SeededBug(String id) {
        this.id = id;
    }

    /**
     * The bug's name, as {@code -Dweir.bug} takes it.
     *
     * @return the id, such as {@code skip-abort}
     */
    public String id() {
        return id;
    }
}
