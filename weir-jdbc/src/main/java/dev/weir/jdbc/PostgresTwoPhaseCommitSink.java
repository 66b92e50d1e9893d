package dev.weir.jdbc;

import dev.weir.api.UnrecoverableException;
import dev.weir.api.codec.Codec;
import dev.weir.api.codec.Codecs;
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

    private final PostgresConnectionConfig config;
    private final TableMapping<T> table;
    private final int batchSize;
    private final String transactionIdPrefix;

    private PostgresTwoPhaseCommitSink(
            PostgresConnectionConfig config,
            TableMapping<T> table,
            int batchSize,
            String transactionIdPrefix) {
        this.config = config;
        this.table = table;
        this.batchSize = batchSize;
        this.transactionIdPrefix = transactionIdPrefix;
    }

    /** A sink writing {@code table}'s rows into the database {@code config} names. */
    public static <T> PostgresTwoPhaseCommitSink<T> into(
            PostgresConnectionConfig config, TableMapping<T> table) {
        return new PostgresTwoPhaseCommitSink<>(config, table, 1000, null);
    }

    /** Rows sent to the server per batch (default 1000). */
    public PostgresTwoPhaseCommitSink<T> batchSize(int rows) {
        if (rows < 1) {
            throw new IllegalArgumentException("batch size must be at least 1");
        }
        return new PostgresTwoPhaseCommitSink<>(config, table, rows, transactionIdPrefix);
    }

    /**
     * The prefix of this sink's transaction ids; default {@code weir:<job>:<sink>}. Two jobs
     * writing to one database must not share it: each would roll back the other's transactions.
     */
    public PostgresTwoPhaseCommitSink<T> transactionIdPrefix(String prefix) {
        if (prefix.isEmpty() || prefix.length() > MAX_GID - 24) {
            throw new IllegalArgumentException(
                    "transaction id prefix must have 1 to " + (MAX_GID - 24) + " characters");
        }
        return new PostgresTwoPhaseCommitSink<>(config, table, batchSize, prefix);
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
        return new Writer<>(this, prefix, context.subtaskIndex());
    }

    /** The transaction ids of prepared transactions of {@code prefix} in the database now. */
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

    private static final class Writer<T> implements TransactionalWriter<T, String> {
        private final PostgresConnectionConfig config;
        private final TableMapping<T> table;
        private final int batchSize;
        private final String prefix;
        private final int subtask;
        private final String applicationName;
        private final Connection data;
        private final PreparedStatement insert;
        private Connection control;
        private int batched;
        private boolean dirty;

        Writer(PostgresTwoPhaseCommitSink<T> sink, String prefix, int subtask) throws SQLException {
            this.config = sink.config;
            this.table = sink.table;
            this.batchSize = sink.batchSize;
            this.prefix = prefix;
            this.subtask = subtask;
            this.applicationName = prefix + ":" + subtask;
            Connection connection = config.open(applicationName);
            try {
                checkPreparedTransactionsEnabled(connection);
                TableCheck.check(connection, config, table);
                connection.setAutoCommit(false);
                this.insert = connection.prepareStatement(table.insertSql());
            } catch (SQLException | RuntimeException e) {
                connection.close();
                throw e;
            }
            this.data = connection;
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
            String gid = prefix + ":" + subtask + ":" + checkpointId;
            try (Statement statement = data.createStatement()) {
                statement.execute("PREPARE TRANSACTION " + literal(gid));
            } catch (SQLException e) {
                throw onWriteFailure(e);
            }
            dirty = false;
            return gid;
        }

        @Override
        public void commit(String gid) throws Exception {
            finish("COMMIT PREPARED", gid);
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
            List<String> prepared =
                    Retry.run(
                            config,
                            "list prepared transactions on " + config.url(),
                            () -> {
                                try {
                                    return preparedTransactions(control(), prefix);
                                } catch (SQLException e) {
                                    if (PostgresErrors.isConnectionLoss(e)) {
                                        closeControl();
                                    }
                                    throw e;
                                }
                            });
            for (String gid : prepared) {
                String rest = gid.substring(prefix.length() + 1);
                int colon = rest.indexOf(':');
                if (colon <= 0 || keep.contains(gid)) {
                    continue;
                }
                int owner;
                try {
                    owner = Integer.parseInt(rest.substring(0, colon));
                } catch (NumberFormatException e) {
                    continue; // not one of ours: another prefix that starts like ours
                }
                if (owner % parallelism == subtask) {
                    LOG.info("rolling back lingering prepared transaction {}", gid);
                    finish("ROLLBACK PREPARED", gid);
                }
            }
        }

        private Connection control() throws SQLException {
            if (control == null) {
                control = config.open(applicationName + ":commit");
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
