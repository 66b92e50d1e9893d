package dev.weir.jdbc;

import dev.weir.api.UnrecoverableException;
import dev.weir.api.codec.Codec;
import dev.weir.api.codec.Codecs;
import dev.weir.api.sink.JobInstance;
import dev.weir.api.sink.SinkContext;
import dev.weir.api.sink.TransactionalWriter;
import dev.weir.api.sink.TwoPhaseCommitSink;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Exactly-once into PostgreSQL by two-phase commit: each sink subtask writes the records between
 * two checkpoints into one database transaction, prepares it with {@code PREPARE TRANSACTION} at
 * the checkpoint barrier, and commits it with {@code COMMIT PREPARED} once the checkpoint is
 * complete. A prepared transaction survives crashes of Weir and of the server; after a restart the
 * transactions named in the restored checkpoint are committed, and every other prepared transaction
 * of this sink found in {@code pg_prepared_xacts} is rolled back.
 *
 * <p>Transaction ids are {@code <prefix>:<subtask>:<checkpoint id>}; the prefix defaults to {@code
 * weir:<job>:<sink>} and must be unique among the jobs sharing a database. The server needs {@code
 * max_prepared_transactions} of at least twice the sink's parallelism (PostgreSQL's default is 0,
 * which disables PREPARE TRANSACTION). Records go in as batched {@code INSERT}s, or upserts when
 * the mapping has key columns. Readers see a checkpoint's rows at once, when it commits.
 *
 * <p>Each prepared transaction also inserts a row {@code (prefix, subtask, checkpoint id)} into a
 * progress table ({@code weir_2pc_progress} by default, created on first use), which becomes
 * visible exactly when the transaction commits. A resumed job that finds output committed for a
 * checkpoint newer than the one it restored refuses to run with {@link UnrecoverableException}: a
 * newer checkpoint completed and was lost, and replaying from the older one would write that output
 * twice (see {@link TransactionalWriter#recoverOwned}).
 *
 * <p>A job with a checkpoint directory ({@link SinkContext#jobInstanceId()} not empty) claims the
 * prefix with a row of the progress table ({@code subtask = -1}, the owner's instance id, job name,
 * host and checkpoint directory in {@code transaction_prefix}), under an advisory lock so that of
 * two jobs starting at once one wins. A writer whose prefix another job instance claimed refuses to
 * run with {@link UnrecoverableException} when it starts, before it commits, rolls back or reads
 * anything of the prefix: two different jobs with the same job and sink names (two copies of a
 * service, each with its own checkpoint directory) share the default prefix and would roll back or
 * commit each other's prepared transactions. The message names both jobs and the fixes: a prefix
 * per deployment with {@link #transactionIdPrefix}, the first job's checkpoint directory if it is
 * the same job, or the {@code DELETE} that releases the claim of a job gone for good. A claim whose
 * owner ran on this host and whose checkpoint directory no longer holds its instance id (deleted,
 * or deleted and started over) is taken over with a warning, provided nothing of the owner runs: no
 * other session of the prefix (the sink's sessions set application_name to {@code
 * <prefix>:<subtask>...}) and no prepared transaction of it. The same job restarted on its
 * directory keeps its claim; a job without checkpoint directory claims nothing, but refuses a
 * prefix another job claimed just the same.
 *
 * <p>A lost connection while connecting, committing or rolling back is retried with backoff (a
 * retried {@code COMMIT PREPARED} whose first reply was lost finds the transaction gone and counts
 * as done). A connection lost in the middle of a transaction fails the task: the open transaction
 * is gone with it, and the restart replays its records from the last checkpoint.
 *
 * @param <T> record type
 */
public final class PostgresTwoPhaseCommitSink<T> implements TwoPhaseCommitSink<T, String> {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(PostgresTwoPhaseCommitSink.class);
    private static final int MAX_GID = 200;

    /**
     * Advisory lock class ("weir" in ASCII) of prefix claims; the prefix's hash is the object. In
     * the two-key space, apart from {@link ProgressTable}'s single-key lock.
     */
    private static final int CLAIM_LOCK = 0x77656972;

    /** How to reach the database. */
    private final PostgresConnectionConfig config;

    /** Where the records go. */
    private final TableMapping<T> table;

    /** Rows sent to the server per batch. */
    private final int batchSize;

    /** The prefix of transaction ids, or null for {@code weir:<job>:<sink>}. */
    private final String transactionIdPrefix;

    /** The table recording which checkpoint each prepared transaction belongs to. */
    private final String progressTable;

    private PostgresTwoPhaseCommitSink(
            PostgresConnectionConfig config,
            TableMapping<T> table,
            int batchSize,
            String transactionIdPrefix,
            String progressTable) {
        this.config = config;
        this.table = table;
        this.batchSize = batchSize;
        this.transactionIdPrefix = transactionIdPrefix;
        this.progressTable = progressTable;
    }

    /**
     * A sink writing {@code table}'s rows into the database {@code config} names.
     *
     * @param <T> record type
     * @param config how to reach the database
     * @param table the table and its columns; with key columns the rows are upserts
     * @return the sink, with batches of 1000 rows, the default transaction id prefix and the
     *     progress table {@code weir_2pc_progress}
     */
    public static <T> PostgresTwoPhaseCommitSink<T> into(
            PostgresConnectionConfig config, TableMapping<T> table) {
        return new PostgresTwoPhaseCommitSink<>(config, table, 1000, null, "weir_2pc_progress");
    }

    /**
     * Rows sent to the server per batch (default 1000).
     *
     * @param rows rows per batch, at least 1
     * @return a copy with this batch size
     * @throws IllegalArgumentException if {@code rows} is less than 1
     */
    public PostgresTwoPhaseCommitSink<T> batchSize(int rows) {
        if (rows < 1) {
            throw new IllegalArgumentException("batch size must be at least 1");
        }
        return new PostgresTwoPhaseCommitSink<>(
                config, table, rows, transactionIdPrefix, progressTable);
    }

    /**
     * The prefix of this sink's transaction ids; default {@code weir:<job>:<sink>}. Two jobs
     * writing to one database must not share it: each would roll back the other's transactions. A
     * job that finds its prefix claimed by another job (for example another copy of the same
     * service, on its own checkpoint directory) refuses to start; give each copy a prefix of its
     * own, such as {@code weir:<job>:<sink>:<deployment>}.
     *
     * @param prefix the prefix, 1 to 176 characters
     * @return a copy with this prefix
     * @throws IllegalArgumentException if {@code prefix} is empty or too long
     */
    public PostgresTwoPhaseCommitSink<T> transactionIdPrefix(String prefix) {
        if (prefix.isEmpty() || prefix.length() > MAX_GID - 24) {
            throw new IllegalArgumentException(
                    "transaction id prefix must have 1 to " + (MAX_GID - 24) + " characters");
        }
        return new PostgresTwoPhaseCommitSink<>(config, table, batchSize, prefix, progressTable);
    }

    /**
     * The table in which each prepared transaction records its subtask and checkpoint id (default
     * {@code weir_2pc_progress}); created on first use, or once by a privileged user: {@code CREATE
     * TABLE weir_2pc_progress (transaction_prefix text NOT NULL, subtask int NOT NULL,
     * checkpoint_id bigint NOT NULL, PRIMARY KEY (transaction_prefix, subtask, checkpoint_id))},
     * with SELECT, INSERT and DELETE granted to the sink's user. It must live in the sink table's
     * database: the row commits with the output. It also holds the claim on the transaction id
     * prefix (a row with {@code subtask = -1}), so every job using a prefix must use the same
     * progress table.
     *
     * @param name a plain table name or {@code schema.name}
     * @return a copy using this progress table
     * @throws IllegalArgumentException if {@code name} is not a plain name
     */
    public PostgresTwoPhaseCommitSink<T> progressTable(String name) {
        TableMapping.checkTable(name);
        return new PostgresTwoPhaseCommitSink<>(
                config, table, batchSize, transactionIdPrefix, name);
    }

    /**
     * Round trips to PostgreSQL block: the sink runs on threads of its own.
     *
     * @return true
     */
    @Override
    public boolean isBlocking() {
        return true;
    }

    @Override
    public String kind() {
        return "postgres-2pc";
    }

    @Override
    public Codec<String> committableCodec() {
        return Codecs.STRING;
    }

    @Override
    public TransactionalWriter<T, String> createTransactionalWriter(SinkContext context)
            throws Exception {
        String prefix =
                transactionIdPrefix != null
                        ? transactionIdPrefix
                        : "weir:" + context.jobName() + ":" + context.sinkName();
        if (prefix.length() > MAX_GID - 24) {
            throw new UnrecoverableException(
                    "transaction id prefix '"
                            + prefix
                            + "' is longer than PostgreSQL's transaction ids allow; give the sink a"
                            + " shorter one with transactionIdPrefix(...)");
        }
        return new Writer<>(this, prefix, context);
    }

    /**
     * The transaction ids of prepared transactions of {@code prefix} in the database now: those
     * prepared and not yet committed or rolled back. For tests and operators who want to see what a
     * sink left behind.
     *
     * @param connection an open connection to the sink's database; not closed here
     * @param prefix the sink's transaction id prefix, without the trailing colon
     * @return the transaction ids, sorted; empty if there are none
     * @throws SQLException if the query fails
     */
    public static List<String> preparedTransactions(Connection connection, String prefix)
            throws SQLException {
        List<String> gids = new ArrayList<>();
        try (PreparedStatement statement =
                connection.prepareStatement(
                        "SELECT gid FROM pg_prepared_xacts WHERE database = current_database()"
                                + " AND starts_with(gid, ?) ORDER BY gid")) {
            statement.setString(1, prefix + ":");
            try (ResultSet rs = statement.executeQuery()) {
                while (rs.next()) {
                    gids.add(rs.getString(1));
                }
            }
        }
        return gids;
    }

    /** The progress table's columns, as CREATE TABLE takes them. */
    static final String PROGRESS_COLUMNS =
            "transaction_prefix text NOT NULL, subtask int NOT NULL, checkpoint_id bigint NOT NULL,"
                    + " PRIMARY KEY (transaction_prefix, subtask, checkpoint_id)";

    /** A transaction id of this sink, taken apart: the subtask that prepared it, and its id. */
    private record Gid(String gid, int subtask, long checkpointId) {
        /** Parses {@code <prefix>:<subtask>:<checkpoint id>}; null if it is not one of ours. */
        static Gid parse(String gid, String prefix) {
            if (!gid.startsWith(prefix + ":")) {
                return null;
            }
            String rest = gid.substring(prefix.length() + 1);
            int colon = rest.indexOf(':');
            if (colon <= 0) {
                return null;
            }
            try {
                return new Gid(
                        gid,
                        Integer.parseInt(rest.substring(0, colon)),
                        Long.parseLong(rest.substring(colon + 1)));
            } catch (NumberFormatException e) {
                return null; // another prefix that starts like ours
            }
        }
    }

    private static final class Writer<T> implements TransactionalWriter<T, String> {
        private final PostgresConnectionConfig config;
        private final TableMapping<T> table;
        private final int batchSize;
        private final String prefix;
        private final int subtask;
        private final String sinkName;
        private final long restoredCheckpointId;
        private final String progressTable;
        private final String applicationName;

        /**
         * Ends the application_name of this job instance's sessions, so that a check for running
         * sessions of the prefix can tell this job's other subtasks from another job's.
         */
        private final String sessionTag;

        private final String jobName;
        private final boolean explicitPrefix;
        private final JobInstance instance;
        private final Connection data;
        private boolean claimed;
        private final PreparedStatement insert;
        private final PreparedStatement progress;
        private Connection control;
        private int batched;
        private boolean dirty;

        Writer(PostgresTwoPhaseCommitSink<T> sink, String prefix, SinkContext context)
                throws SQLException {
            this.config = sink.config;
            this.table = sink.table;
            this.batchSize = sink.batchSize;
            this.prefix = prefix;
            this.subtask = context.subtaskIndex();
            this.sinkName = context.sinkName();
            this.restoredCheckpointId = context.restoredCheckpointId();
            this.progressTable = sink.progressTable;
            this.applicationName = prefix + ":" + subtask;
            this.instance = JobInstance.of(context).orElse(null);
            this.sessionTag = "@" + (instance == null ? "-" : ClaimRow.tag(instance));
            this.jobName = context.jobName();
            this.explicitPrefix = sink.transactionIdPrefix != null;
            Connection connection = config.open(applicationName + sessionTag);
            try {
                checkPreparedTransactionsEnabled(connection);
                TableCheck.check(connection, config, table);
                ProgressTable.ensure(
                        connection,
                        config,
                        progressTable,
                        PROGRESS_COLUMNS,
                        List.of("SELECT", "INSERT", "DELETE"),
                        "the two-phase-commit sink");
                connection.setAutoCommit(false);
                // Before any commit, rollback or progress row: refuse a prefix another job instance
                // claimed. The claim itself waits for recoverOwned's checks; a job without an
                // instance id checks too (it would roll back the owner's prepared transactions),
                // but claims nothing.
                claimPrefix(connection, false);
                if (instance == null) {
                    LOG.debug(
                            "sink '{}': the job has no instance id (no checkpoint directory);"
                                    + " prefix {} is not claimed",
                            sinkName,
                            prefix);
                }
                this.insert = connection.prepareStatement(table.insertSql());
                // DO NOTHING: a row left by an earlier run that reused the id says the same.
                this.progress =
                        connection.prepareStatement(
                                "INSERT INTO "
                                        + progressTable
                                        + " (transaction_prefix, subtask, checkpoint_id)"
                                        + " VALUES (?, ?, ?) ON CONFLICT DO NOTHING");
            } catch (SQLException | RuntimeException e) {
                connection.close();
                throw e;
            }
            this.data = connection;
        }

        /**
         * Refuses if another job instance claimed the prefix (two jobs with the same job and sink
         * names share the default prefix), unless that instance is provably not running (see {@link
         * #runningEvidence}); then, if {@code write}, claims it for this one ({@code write} only
         * with an instance). One transaction under an advisory lock on the prefix, so of two jobs
         * that claim at once one wins and the other refuses. The claim is a row of the progress
         * table (see the class javadoc). Leaves {@code connection}'s autocommit mode as it found
         * it.
         */
        /**
         * The job instance whose claim this writer takes over (its directory is gone, nothing of it
         * runs), or null: the output in the table is then that job's, not this one's.
         */
        private JobInstance tookOverFrom;

        private void claimPrefix(Connection connection, boolean write) throws SQLException {
            boolean autoCommit = connection.getAutoCommit();
            connection.setAutoCommit(false);
            try {
                try (PreparedStatement lock =
                        connection.prepareStatement(
                                "SELECT pg_advisory_xact_lock(" + CLAIM_LOCK + ", hashtext(?))")) {
                    lock.setString(1, prefix);
                    lock.executeQuery().close();
                }
                List<String> rows = new ArrayList<>();
                try (PreparedStatement select =
                        connection.prepareStatement(
                                "SELECT transaction_prefix FROM "
                                        + progressTable
                                        + " WHERE subtask = ? AND starts_with(transaction_prefix,"
                                        + " ?)")) {
                    select.setInt(1, ClaimRow.CLAIM_SUBTASK);
                    select.setString(2, ClaimRow.rowStart(prefix));
                    try (ResultSet rs = select.executeQuery()) {
                        while (rs.next()) {
                            rows.add(rs.getString(1));
                        }
                    }
                }
                String mine = instance == null ? null : ClaimRow.encode(instance, prefix);
                for (String row : rows) {
                    JobInstance owner = ClaimRow.decode(prefix, row).orElse(null);
                    if (owner == null
                            || (instance != null
                                    && owner.instanceId().equals(instance.instanceId()))) {
                        continue;
                    }
                    String how = write ? "was claimed at the same time by" : "is claimed by";
                    String host = instance != null ? instance.host() : JobInstance.thisHost();
                    if (!owner.isGoneFrom(host)) {
                        throw new UnrecoverableException(sharedPrefix(owner, how, ""));
                    }
                    String running = runningEvidence(connection);
                    if (!running.isEmpty()) {
                        throw new UnrecoverableException(sharedPrefix(owner, how, running));
                    }
                    if (instance != null) {
                        tookOverFrom = owner; // it takes (or will take) it over: not its output
                    }
                    if (write || instance == null) {
                        // Its directory was deleted (or started over) and nothing of it runs: that
                        // job can never run again.
                        LOG.warn(
                                "sink '{}': {} transaction id prefix {} from {}, whose checkpoint"
                                        + " directory no longer holds it and which has no session"
                                        + " and no prepared transaction",
                                sinkName,
                                instance != null ? "takes over" : "ignores the claim on",
                                prefix,
                                owner.describe());
                    }
                }
                if (write && !rows.equals(List.of(mine))) {
                    try (PreparedStatement delete =
                                    connection.prepareStatement(
                                            "DELETE FROM "
                                                    + progressTable
                                                    + " WHERE subtask = ? AND"
                                                    + " starts_with(transaction_prefix, ?)");
                            PreparedStatement insert =
                                    connection.prepareStatement(
                                            "INSERT INTO "
                                                    + progressTable
                                                    + " (transaction_prefix, subtask,"
                                                    + " checkpoint_id) VALUES (?, ?, ?)")) {
                        delete.setInt(1, ClaimRow.CLAIM_SUBTASK);
                        delete.setString(2, ClaimRow.rowStart(prefix));
                        delete.executeUpdate();
                        insert.setString(1, mine);
                        insert.setInt(2, ClaimRow.CLAIM_SUBTASK);
                        insert.setLong(3, System.currentTimeMillis()); // when it was claimed
                        insert.executeUpdate();
                    }
                }
                connection.commit();
            } catch (SQLException | RuntimeException e) {
                try {
                    connection.rollback();
                } catch (SQLException suppressed) {
                    e.addSuppressed(suppressed);
                }
                throw e;
            }
            connection.setAutoCommit(autoCommit);
            if (write) {
                claimed = true;
            }
        }

        /**
         * Why a claim's owner may still run although its directory looks gone (two containers with
         * the same host name and their own volumes see different directories under one path): a
         * session of the prefix other than this writer's and its job instance's (the writer sets
         * application_name to {@code <prefix>:<subtask>...}), or a prepared transaction of the
         * prefix; "" if there is neither. A running job of the prefix has its sessions open; a job
         * that ended cleanly has neither.
         */
        private String runningEvidence(Connection connection) throws SQLException {
            String start = prefix + ":";
            start = start.length() > 63 ? start.substring(0, 63) : start; // as PostgreSQL cuts it
            List<String> sessions = new ArrayList<>();
            try (PreparedStatement select =
                    connection.prepareStatement(
                            "SELECT application_name FROM pg_stat_activity WHERE pid <>"
                                    + " pg_backend_pid() AND datname = current_database() AND"
                                    + " starts_with(application_name, ?) ORDER BY"
                                    + " application_name")) {
                select.setString(1, start);
                try (ResultSet rs = select.executeQuery()) {
                    while (rs.next()) {
                        String name = rs.getString(1);
                        if (instance == null || !name.endsWith(sessionTag)) {
                            sessions.add(name);
                        }
                    }
                }
            }
            List<String> prepared = preparedTransactions(connection, prefix);
            if (sessions.isEmpty() && prepared.isEmpty()) {
                return "";
            }
            return " Its checkpoint directory on this host no longer holds it, but "
                    + (sessions.isEmpty()
                            ? ""
                            : sessions.size()
                                    + " session(s) of the prefix are connected (application_name "
                                    + sessions.get(0)
                                    + (sessions.size() > 1 ? ", ..." : "")
                                    + ")"
                                    + (prepared.isEmpty() ? "" : " and "))
                    + (prepared.isEmpty()
                            ? ""
                            : prepared.size()
                                    + " prepared transaction(s) of the prefix wait ("
                                    + prepared.get(0)
                                    + (prepared.size() > 1 ? ", ..." : "")
                                    + ")")
                    + ", so it may still run (for example in a container with the same host name"
                    + " and a volume of its own at that path).";
        }

        /** Claims the prefix on the control connection, unless claimed or without an instance. */
        private void claimPrefixIfUnclaimed() throws SQLException {
            if (instance != null && !claimed) {
                onControl(
                        "claim prefix " + prefix + " in " + progressTable + " on " + config.url(),
                        connection -> {
                            claimPrefix(connection, true);
                            return null;
                        });
            }
        }

        /**
         * The refusal when {@code other}, another job instance, claimed this sink's prefix; {@code
         * evidence} (a sentence, or "") says why it counts as running.
         */
        private String sharedPrefix(JobInstance other, String how, String evidence) {
            return new JobInstance.SharedPrefix(
                            sinkName,
                            jobName,
                            instance,
                            "transaction id prefix",
                            prefix,
                            "PostgreSQL at " + config.url(),
                            "Jobs that share a prefix commit and roll back each other's prepared"
                                    + " transactions (losing or duplicating output) and mix their"
                                    + " rows in "
                                    + progressTable
                                    + "; this job committed and rolled back none of the other's.",
                            explicitPrefix,
                            "transactionIdPrefix",
                            "PostgresTwoPhaseCommitSink.transactionIdPrefix",
                            "database")
                    .refusal(
                            other,
                            how,
                            evidence,
                            "If the other job is gone for good and this one replaces it (its"
                                    + " prepared transactions that no checkpoint of this job names"
                                    + " are then rolled back), release its claim and start again: "
                                    + releaseStatement());
        }

        /** The SQL that deletes this prefix's claim. */
        private String releaseStatement() {
            return "DELETE FROM "
                    + progressTable
                    + " WHERE subtask = "
                    + ClaimRow.CLAIM_SUBTASK
                    + " AND starts_with(transaction_prefix, "
                    + literal(prefix)
                    + " || E'\\nowner\\n')";
        }

        private void checkPreparedTransactionsEnabled(Connection connection) throws SQLException {
            try (Statement statement = connection.createStatement();
                    ResultSet rs = statement.executeQuery("SHOW max_prepared_transactions")) {
                rs.next();
                if (Integer.parseInt(rs.getString(1)) == 0) {
                    throw new UnrecoverableException(
                            "PostgreSQL at "
                                    + config.url()
                                    + " has max_prepared_transactions = 0, so it refuses PREPARE"
                                    + " TRANSACTION and the two-phase-commit sink cannot work; set"
                                    + " max_prepared_transactions to at least twice the sink's"
                                    + " parallelism in postgresql.conf and restart the server, or"
                                    + " use PostgresUpsertSink");
                }
            }
        }

        @Override
        public void write(T record) throws Exception {
            Object[] values = table.valuesOf(record);
            for (int i = 0; i < values.length; i++) {
                insert.setObject(i + 1, values[i]);
            }
            insert.addBatch();
            dirty = true;
            if (++batched >= batchSize) {
                flush();
            }
        }

        private void flush() throws Exception {
            if (batched == 0) {
                return;
            }
            try {
                insert.executeBatch();
                batched = 0;
            } catch (SQLException e) {
                throw onWriteFailure(e);
            }
        }

        private Exception onWriteFailure(SQLException e) {
            SQLException cause = e.getNextException() != null ? e.getNextException() : e;
            if (PostgresErrors.isConnectionLoss(cause) || PostgresErrors.isConnectionLoss(e)) {
                return new SQLException(
                        "sink session "
                                + applicationName
                                + " lost its connection mid-transaction ("
                                + cause.getMessage()
                                + "); its open transaction is gone, and the restart replays its"
                                + " records from the last checkpoint",
                        cause.getSQLState(),
                        e);
            }
            return PostgresErrors.onStatement(config, table, cause);
        }

        @Override
        public String prepareCommit(long checkpointId) throws Exception {
            if (!dirty) {
                return null;
            }
            flush();
            claimPrefixIfUnclaimed(); // recoverOwned did not run
            String gid = prefix + ":" + subtask + ":" + checkpointId;
            try {
                // In the prepared transaction: visible exactly when COMMIT PREPARED runs.
                progress.setString(1, prefix);
                progress.setInt(2, subtask);
                progress.setLong(3, checkpointId);
                progress.executeUpdate();
            } catch (SQLException e) {
                throw onProgressFailure(e);
            }
            try (Statement statement = data.createStatement()) {
                statement.execute("PREPARE TRANSACTION " + literal(gid));
            } catch (SQLException e) {
                throw onWriteFailure(e);
            }
            dirty = false;
            return gid;
        }

        private Exception onProgressFailure(SQLException e) {
            if (PostgresErrors.isConnectionLoss(e)) {
                return onWriteFailure(e);
            }
            return new SQLException(
                    "sink session "
                            + applicationName
                            + " could not record its checkpoint in "
                            + progressTable
                            + " ("
                            + e.getMessage()
                            + ")",
                    e.getSQLState(),
                    e);
        }

        @Override
        public void commit(String gid) throws Exception {
            finish("COMMIT PREPARED", gid);
            forgetOlderProgress(Gid.parse(gid, prefix));
        }

        /**
         * After {@code committed} is committed, its subtask's rows of older checkpoints say nothing
         * more: only the newest committed checkpoint matters to a resumed job. On the autocommit
         * connection, outside any prepared transaction, so it never waits for one (the rows a
         * prepared transaction inserted are invisible to it, and none of them deletes rows).
         */
        private void forgetOlderProgress(Gid committed) throws SQLException {
            if (committed == null) {
                return;
            }
            onControl(
                    "forget older progress rows in " + progressTable + " on " + config.url(),
                    connection -> {
                        try (PreparedStatement statement =
                                connection.prepareStatement(
                                        "DELETE FROM "
                                                + progressTable
                                                + " WHERE transaction_prefix = ? AND subtask = ?"
                                                + " AND checkpoint_id < ?")) {
                            statement.setString(1, prefix);
                            statement.setInt(2, committed.subtask());
                            statement.setLong(3, committed.checkpointId());
                            statement.executeUpdate();
                        }
                        return null;
                    });
        }

        /** A statement on the control connection. */
        @FunctionalInterface
        private interface OnControl<R> {
            R run(Connection control) throws SQLException;
        }

        /** Runs {@code action} on the control connection, retried while the connection is lost. */
        private <R> R onControl(String what, OnControl<R> action) throws SQLException {
            return Retry.run(
                    config,
                    what,
                    () -> {
                        try {
                            return action.run(control());
                        } catch (SQLException e) {
                            if (PostgresErrors.isConnectionLoss(e)) {
                                closeControl();
                            }
                            throw e;
                        }
                    });
        }

        /** Runs {@code command} on {@code gid}; a transaction already gone counts as done. */
        private void finish(String command, String gid) throws SQLException {
            Retry.run(
                    config,
                    command.toLowerCase(java.util.Locale.ROOT)
                            + " '"
                            + gid
                            + "' on "
                            + config.url(),
                    () -> {
                        try (Statement statement = control().createStatement()) {
                            statement.execute(command + " " + literal(gid));
                        } catch (SQLException e) {
                            if (PostgresErrors.UNDEFINED_OBJECT.equals(e.getSQLState())) {
                                // Done before: a reply lost with a connection, or a re-commit
                                // after a restart of a transaction committed before the crash.
                                LOG.debug("{} {}: already done ({})", command, gid, e.getMessage());
                                return null;
                            }
                            if (PostgresErrors.isConnectionLoss(e)) {
                                closeControl();
                            }
                            throw e;
                        }
                        return null;
                    });
        }

        @Override
        public void recoverOwned(List<String> committed, int subtask, int parallelism)
                throws Exception {
            Set<String> keep = new HashSet<>(committed);
            List<Gid> lingering = new ArrayList<>();
            for (String gid :
                    onControl(
                            "list prepared transactions on " + config.url(),
                            connection -> preparedTransactions(connection, prefix))) {
                Gid parsed = Gid.parse(gid, prefix);
                if (parsed != null
                        && !keep.contains(gid)
                        && parsed.subtask() % parallelism == subtask) {
                    lingering.add(parsed);
                }
            }
            // Before any rollback: a refused run must leave the lost checkpoint's prepared
            // transactions for the run that restores it.
            if (restoredCheckpointId >= 0) {
                refuseOutputNewerThanRestored(keep, lingering, subtask, parallelism);
            }
            // After the checks (a job that refuses to run claims nothing), before any rollback.
            claimPrefixIfUnclaimed();
            for (Gid gid : lingering) {
                LOG.info("rolling back lingering prepared transaction {}", gid.gid());
                finish("ROLLBACK PREPARED", gid.gid());
            }
            if (restoredCheckpointId == -1) {
                forgetOwnedProgress(subtask, parallelism);
            }
        }

        /**
         * Throws if a checkpoint newer than the restored one committed output: a row of a subtask
         * this writer owns (other than a restored committable, which was just committed again), or
         * a row of another subtask for the same checkpoint id as one of this writer's lingering
         * transactions (checkpoint ids are shared by all subtasks, and only a complete checkpoint
         * commits; so the lingering one belongs to that lost checkpoint too, and must survive for
         * the run that restores it).
         */
        private void refuseOutputNewerThanRestored(
                Set<String> keep, List<Gid> lingering, int subtask, int parallelism)
                throws SQLException {
            Set<Long> lingeringIds = new HashSet<>();
            for (Gid gid : lingering) {
                lingeringIds.add(gid.checkpointId());
            }
            List<Gid> newer =
                    onControl(
                            "read " + progressTable + " on " + config.url(),
                            connection -> committedAfter(connection, restoredCheckpointId));
            for (Gid row : newer) {
                boolean owned = row.subtask() % parallelism == subtask;
                if (owned ? !keep.contains(row.gid()) : lingeringIds.contains(row.checkpointId())) {
                    throw new UnrecoverableException(refusal(row));
                }
            }
        }

        /** Committed progress rows of this sink newer than {@code checkpointId}, newest first. */
        private List<Gid> committedAfter(Connection connection, long checkpointId)
                throws SQLException {
            List<Gid> rows = new ArrayList<>();
            try (PreparedStatement statement =
                    connection.prepareStatement(
                            "SELECT subtask, checkpoint_id FROM "
                                    + progressTable
                                    + " WHERE transaction_prefix = ? AND checkpoint_id > ?"
                                    + " ORDER BY checkpoint_id DESC, subtask")) {
                statement.setString(1, prefix);
                statement.setLong(2, checkpointId);
                try (ResultSet rs = statement.executeQuery()) {
                    while (rs.next()) {
                        int owner = rs.getInt(1);
                        long id = rs.getLong(2);
                        rows.add(new Gid(prefix + ":" + owner + ":" + id, owner, id));
                    }
                }
            }
            return rows;
        }

        private String refusal(Gid row) {
            String restored =
                    restoredCheckpointId == 0
                            ? "this run asked to resume but found no complete checkpoint"
                            : "this run restored checkpoint " + restoredCheckpointId;
            String newer =
                    row.checkpointId() == Long.MAX_VALUE
                            ? "the final output of a run without checkpoints"
                            : "output of checkpoint " + row.checkpointId();
            return "sink '"
                    + sinkName
                    + "' refuses to run: table "
                    + table.table()
                    + " holds "
                    + newer
                    + ", committed by subtask "
                    + row.subtask()
                    + " (transaction "
                    + row.gid()
                    + ", recorded in "
                    + progressTable
                    + "), but "
                    + restored
                    + (tookOverFrom != null
                            ? ". That output is from another job instance, "
                                    + tookOverFrom.describe()
                                    + ", whose claim on the prefix this job took over because its"
                                    + " checkpoint directory no longer holds it: this job cannot"
                                    + " continue that output, and replaying its input would write"
                                    + " it twice. If this job replaces that one, start over with"
                                    + " resume \"none\" after emptying table "
                            : ". A newer checkpoint completed and its metadata (its _manifest) is"
                                    + " lost, so replaying from there would write that output"
                                    + " twice. Put the lost checkpoint back into the checkpoint"
                                    + " directory and start again; or start over with resume"
                                    + " \"none\" after emptying table ")
                    + table.table()
                    + " (or into an empty table); or, to start over with resume \"latest\" and"
                    + " no checkpoints, empty the table and run DELETE FROM "
                    + progressTable
                    + " WHERE transaction_prefix = '"
                    + prefix.replace("'", "''")
                    + "'";
        }

        /** A fresh start by request: rows of earlier runs describe checkpoints it will not use. */
        private void forgetOwnedProgress(int subtask, int parallelism) throws SQLException {
            onControl(
                    "clear " + progressTable + " on " + config.url(),
                    connection -> {
                        try (PreparedStatement statement =
                                connection.prepareStatement(
                                        "DELETE FROM "
                                                + progressTable
                                                + " WHERE transaction_prefix = ? AND subtask % ? = ?")) {
                            statement.setString(1, prefix);
                            statement.setInt(2, parallelism);
                            statement.setInt(3, subtask);
                            statement.executeUpdate();
                        }
                        return null;
                    });
        }

        private Connection control() throws SQLException {
            if (control == null) {
                control = config.open(applicationName + ":commit" + sessionTag);
                control.setAutoCommit(true);
            }
            return control;
        }

        private void closeControl() {
            if (control != null) {
                try {
                    control.close();
                } catch (SQLException e) {
                    LOG.debug("closing a broken connection", e);
                }
                control = null;
            }
        }

        private static String literal(String value) {
            return "'" + value.replace("'", "''") + "'";
        }

        @Override
        public void close() {
            try {
                if (!data.isClosed()) {
                    data.rollback();
                }
            } catch (SQLException e) {
                LOG.debug("rolling back the open transaction at close", e);
            }
            try {
                data.close();
            } catch (SQLException e) {
                LOG.debug("closing the data connection", e);
            }
            closeControl();
        }
    }
}
