package dev.weir.jdbc;

import dev.weir.api.sink.IdempotentSink;
import dev.weir.api.sink.SinkContext;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Idempotent writes into PostgreSQL: batched {@code INSERT … ON CONFLICT (key) DO UPDATE}. At each
 * checkpoint barrier a sink subtask upserts the newest record per key since the previous barrier,
 * and in the same database transaction records the checkpoint id in a progress table ({@code
 * weir_sink_progress} by default: job, sink, subtask, checkpoint id), so the database always knows
 * which checkpoint its rows reflect.
 *
 * <p>After a failure, the replay rewrites the same keys. That is exactly-once when a replay writes
 * the same value for the same key — results that are a function of the input, such as keyed running
 * aggregates — which is the default; declare {@link #replaysWriteIdenticalValues(boolean)
 * replaysWriteIdenticalValues(false)} when values carry clocks or randomness, and the analyzer
 * reports the sink as at-least-once. Readers may see rows of a checkpoint that a failure then rolls
 * back to (they are rewritten with the same values), never a row that later disappears.
 *
 * <p>An upsert batch lost with its connection is retried whole on a new connection: it is one
 * transaction, and repeating it changes nothing.
 *
 * @param <T> record type
 */
public final class PostgresUpsertSink<T> implements IdempotentSink<T, List<Object>> {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(PostgresUpsertSink.class);

    /** How to reach the database. */
    private final PostgresConnectionConfig config;

    /** Where the records go, with the key columns. */
    private final TableMapping<T> table;

    /** Rows sent to the server per batch. */
    private final int batchSize;

    /** Whether a replay writes the value the first attempt wrote. */
    private final boolean identicalReplays;

    /** The table recording each subtask's checkpoint id. */
    private final String progressTable;

    private PostgresUpsertSink(
            PostgresConnectionConfig config,
            TableMapping<T> table,
            int batchSize,
            boolean identicalReplays,
            String progressTable) {
        this.config = config;
        this.table = table;
        this.batchSize = batchSize;
        this.identicalReplays = identicalReplays;
        this.progressTable = progressTable;
    }

    /**
     * A sink upserting {@code table}'s rows by its key columns into the database {@code config}
     * names. The table needs a primary key or unique index on the key columns.
     *
     * @param <T> record type
     * @param config how to reach the database
     * @param table the table, its columns and its key columns
     * @return the sink, with batches of 1000 rows and the progress table {@code weir_sink_progress}
     * @throws IllegalArgumentException if {@code table} has no key columns
     */
    public static <T> PostgresUpsertSink<T> into(
            PostgresConnectionConfig config, TableMapping<T> table) {
        if (table.keyColumns().isEmpty()) {
            throw new IllegalArgumentException(
                    "an upsert sink needs key columns: TableMapping.of(...).key(\"id\")");
        }
        return new PostgresUpsertSink<>(config, table, 1000, true, "weir_sink_progress");
    }

    /**
     * Rows sent to the server per batch (default 1000).
     *
     * @param rows rows per batch, at least 1
     * @return a copy with this batch size
     * @throws IllegalArgumentException if {@code rows} is less than 1
     */
    public PostgresUpsertSink<T> batchSize(int rows) {
        if (rows < 1) {
            throw new IllegalArgumentException("batch size must be at least 1");
        }
        return new PostgresUpsertSink<>(config, table, rows, identicalReplays, progressTable);
    }

    /**
     * Whether a replay always writes the value the first attempt wrote (default true).
     *
     * @param identical false when values carry clocks or randomness: the analyzer then reports the
     *     sink as at-least-once
     * @return a copy with this declaration
     */
    public PostgresUpsertSink<T> replaysWriteIdenticalValues(boolean identical) {
        return new PostgresUpsertSink<>(config, table, batchSize, identical, progressTable);
    }

    /**
     * The table that records each subtask's checkpoint id (default weir_sink_progress); created on
     * first use, in the sink table's database.
     *
     * @param name a plain table name or {@code schema.name}
     * @return a copy using this progress table
     * @throws IllegalArgumentException if {@code name} is not a plain name
     */
    public PostgresUpsertSink<T> progressTable(String name) {
        TableMapping.checkTable(name);
        return new PostgresUpsertSink<>(config, table, batchSize, identicalReplays, name);
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
        return "postgres-upsert";
    }

    @Override
    public List<Object> keyOf(T record) {
        Object[] values = table.valuesOf(record);
        Object[] key = new Object[table.keyColumns().size()];
        for (int i = 0; i < key.length; i++) {
            key[i] = values[table.columns().indexOf(table.keyColumns().get(i))];
        }
        return Arrays.asList(key);
    }

    @Override
    public boolean replaysWriteIdenticalValues() {
        return identicalReplays;
    }

    @Override
    public UpsertWriter<T> createUpsertWriter(SinkContext context) throws Exception {
        return new Writer<>(this, context);
    }

    private static final class Writer<T> implements UpsertWriter<T> {
        private final PostgresUpsertSink<T> sink;
        private final SinkContext context;
        private final String applicationName;
        private Connection connection;
        private PreparedStatement upsert;
        private PreparedStatement progress;

        Writer(PostgresUpsertSink<T> sink, SinkContext context) throws Exception {
            this.sink = sink;
            this.context = context;
            this.applicationName =
                    "weir:"
                            + context.jobName()
                            + ":"
                            + context.sinkName()
                            + ":"
                            + context.subtaskIndex();
            connect(true);
        }

        private void connect(boolean check) throws SQLException {
            Connection c = sink.config.open(applicationName);
            try {
                if (check) {
                    TableCheck.check(c, sink.config, sink.table);
                    createProgressTable(c);
                }
                c.setAutoCommit(false);
                upsert = c.prepareStatement(sink.table.insertSql());
                progress =
                        c.prepareStatement(
                                "INSERT INTO "
                                        + sink.progressTable
                                        + " (job, sink, subtask, checkpoint_id) VALUES (?, ?, ?, ?)"
                                        + " ON CONFLICT (job, sink, subtask)"
                                        + " DO UPDATE SET checkpoint_id = EXCLUDED.checkpoint_id");
            } catch (SQLException | RuntimeException e) {
                c.close();
                throw e;
            }
            connection = c;
        }

        private void createProgressTable(Connection c) throws SQLException {
            ProgressTable.ensure(
                    c,
                    sink.config,
                    sink.progressTable,
                    "job text NOT NULL, sink text NOT NULL, subtask int NOT NULL,"
                            + " checkpoint_id bigint NOT NULL, PRIMARY KEY (job, sink, subtask)",
                    List.of("SELECT", "INSERT", "UPDATE"),
                    "the upsert sink");
        }

        @Override
        public void upsert(List<T> records, long checkpointId) throws Exception {
            try {
                Retry.run(
                        sink.config,
                        "upsert checkpoint " + checkpointId + " into " + sink.table.table(),
                        () -> {
                            if (connection == null) {
                                connect(false); // the previous attempt lost it
                            }
                            try {
                                upsertOnce(records, checkpointId);
                                return null;
                            } catch (SQLException e) {
                                SQLException cause = rootCause(e);
                                if (PostgresErrors.isConnectionLoss(cause)) {
                                    // One transaction: repeating it on a new connection is safe.
                                    closeQuietly();
                                    connection = null;
                                } else {
                                    rollbackQuietly();
                                }
                                throw cause;
                            }
                        });
            } catch (SQLException e) {
                if (PostgresErrors.isConnectionLoss(e)) {
                    throw e; // Retry.run named the server and the attempts
                }
                throw PostgresErrors.onStatement(sink.config, sink.table, e);
            }
        }

        /** A batch failure carries the statement's own error as its next exception. */
        private static SQLException rootCause(SQLException e) {
            SQLException next = e.getNextException();
            return next == null || PostgresErrors.isConnectionLoss(e) ? e : next;
        }

        private void rollbackQuietly() {
            try {
                connection.rollback();
            } catch (SQLException ignored) {
                // The statement's own error is the one to report.
            }
        }

        private void upsertOnce(List<T> records, long checkpointId) throws SQLException {
            int batched = 0;
            for (T record : records) {
                Object[] values = sink.table.valuesOf(record);
                for (int i = 0; i < values.length; i++) {
                    upsert.setObject(i + 1, values[i]);
                }
                upsert.addBatch();
                if (++batched >= sink.batchSize) {
                    upsert.executeBatch();
                    batched = 0;
                }
            }
            if (batched > 0) {
                upsert.executeBatch();
            }
            progress.setString(1, context.jobName());
            progress.setString(2, context.sinkName());
            progress.setInt(3, context.subtaskIndex());
            progress.setLong(4, checkpointId);
            progress.executeUpdate();
            connection.commit();
        }

        @Override
        public long lastCheckpointId() throws SQLException {
            try (PreparedStatement statement =
                    connection.prepareStatement(
                            "SELECT checkpoint_id FROM "
                                    + sink.progressTable
                                    + " WHERE job = ? AND sink = ? AND subtask = ?")) {
                statement.setString(1, context.jobName());
                statement.setString(2, context.sinkName());
                statement.setInt(3, context.subtaskIndex());
                try (ResultSet rs = statement.executeQuery()) {
                    long id = rs.next() ? rs.getLong(1) : -1;
                    connection.commit();
                    return id;
                }
            }
        }

        private void closeQuietly() {
            try {
                connection.close();
            } catch (SQLException e) {
                LOG.debug("closing a broken connection", e);
            }
        }

        @Override
        public void close() {
            closeQuietly();
        }
    }
}
