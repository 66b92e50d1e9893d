package dev.weir.internal.testhooks;

/**
 * Deliberate bugs for {@code weir verify}'s self-check, which proves that its checker catches real
 * exactly-once violations. Off unless the JVM runs with {@code -Dweir.bug=<name>}; off, each is a
 * test of a static final field, which the JIT removes. Never set it in production.
 *
 * <ul>
 *   <li>{@code commit-before-complete}: a two-phase-commit sink commits at the barrier, before the
 *       checkpoint is complete (a crash in between replays records already committed).
 *   <li>{@code skip-abort}: a restarted two-phase-commit sink does not abort the transactions a
 *       crashed run left behind (they linger as pending files or prepared transactions).
 *   <li>{@code rename-without-fsync}: a manifest is renamed into place without a fsync of its
 *       directory, so a power cut can take a completed checkpoint back after its commits ran.
 *   <li>{@code checkpoint-directory-without-fsync}: a checkpoint directory's entry in the
 *       checkpoint root is never forced, so a power cut can take the whole checkpoint away.
 *   <li>{@code fallback-older}: a restarted job restores the second newest complete checkpoint
 *       (whose successor's commits already ran).
 *   <li>{@code reread-ended-splits}: a restored source reads again the splits that had ended before
 *       the checkpoint (the files source's bug found in wave 1).
 * </ul>
 */
public final class SeededBugs {
    private static final String BUG = System.getProperty("weir.bug", "");

    /** Commit at the barrier instead of after the checkpoint completes. */
    public static final boolean COMMIT_BEFORE_COMPLETE = BUG.equals("commit-before-complete");

    /** Skip aborting lingering transactions after a restart. */
    public static final boolean SKIP_ABORT = BUG.equals("skip-abort");

    /**
     * One of the two bugs a kill just after a pre-commit exposes; only a pre-commit of a
     * transaction that holds records counts towards that kill then, as one that holds none commits
     * and leaves nothing.
     */
    public static final boolean KILLED_AFTER_PRECOMMIT = COMMIT_BEFORE_COMPLETE || SKIP_ABORT;

    /** Rename a manifest into place without forcing its directory (lost in a power cut). */
    public static final boolean RENAME_WITHOUT_FSYNC = BUG.equals("rename-without-fsync");

    /** Create a checkpoint directory without forcing its parent (lost in a power cut). */
    public static final boolean CHECKPOINT_DIRECTORY_WITHOUT_FSYNC =
            BUG.equals("checkpoint-directory-without-fsync");

    /** Restore the second newest complete checkpoint. */
    public static final boolean FALLBACK_OLDER = BUG.equals("fallback-older");

    /**
     * One of the three bugs a kill just after a commit exposes; only a commit of records, of the
     * newest checkpoint its subtask took a barrier for, counts towards that kill then: a commit of
     * nothing leaves nothing to write twice, and a newer checkpoint completed before the kill makes
     * restoring the one before it right.
     */
    public static final boolean KILLED_AFTER_COMMIT =
            FALLBACK_OLDER || RENAME_WITHOUT_FSYNC || CHECKPOINT_DIRECTORY_WITHOUT_FSYNC;

    /** Read ended splits again from their start after a restore. */
    public static final boolean REREAD_ENDED_SPLITS = BUG.equals("reread-ended-splits");

    private SeededBugs() {}
}
