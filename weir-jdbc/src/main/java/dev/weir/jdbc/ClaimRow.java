package dev.weir.jdbc;

import dev.weir.api.sink.JobInstance;
import java.util.Optional;

/**
 * How a two-phase-commit sink records the {@link JobInstance} that claimed its transaction id
 * prefix: as a claim row in the progress table (see {@link PostgresTwoPhaseCommitSink}), whose
 * transaction_prefix column holds {@code <prefix> + MARK +} the instance's {@link JobInstance#lines
 * lines}.
 */
final class ClaimRow {
    /** Marks a claim row: {@code <prefix> + MARK + fields}, in the transaction_prefix column. */
    static final String MARK = "\nowner\n";

    /** The subtask column of a claim row (no subtask has it). */
    static final int CLAIM_SUBTASK = -1;

    /** Longest field kept: the whole row text must fit a btree index entry. */
    private static final int MAX_FIELD = 500;

    private ClaimRow() {}

    /** What {@code prefix}'s claim rows start with in the transaction_prefix column. */
    static String rowStart(String prefix) {
        return prefix + MARK;
    }

    /** {@code owner}'s claim row text for {@code prefix}. */
    static String encode(JobInstance owner, String prefix) {
        return rowStart(prefix) + owner.lines(MAX_FIELD);
    }

    /** The owner in a claim row of {@code prefix}, or empty if the row is not one. */
    static Optional<JobInstance> decode(String prefix, String row) {
        if (row == null || !row.startsWith(rowStart(prefix))) {
            return Optional.empty();
        }
        return JobInstance.parse(row.substring(rowStart(prefix).length()));
    }

    /**
     * A short tag of {@code owner}'s instance id, which ends the application_name of its sessions.
     */
    static String tag(JobInstance owner) {
        String id = owner.instanceId().replaceAll("[^A-Za-z0-9]", "");
        return id.length() > 8 ? id.substring(0, 8) : id;
    }
}
