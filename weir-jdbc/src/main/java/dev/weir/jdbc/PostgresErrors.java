package dev.weir.jdbc;

import dev.weir.api.UnrecoverableException;
import java.sql.SQLException;

/**
 * Turns PostgreSQL's SQLSTATE codes into messages that name the cause and the fix, and tells lost
 * connections (worth a retry) from mistakes a retry cannot fix.
 */
final class PostgresErrors {
    static final String UNDEFINED_TABLE = "42P01";
    static final String UNDEFINED_COLUMN = "42703";
    static final String UNDEFINED_OBJECT = "42704";
    static final String INSUFFICIENT_PRIVILEGE = "42501";
    static final String NO_UNIQUE_CONSTRAINT = "42P10";
    static final String DUPLICATE_OBJECT = "42710";

    private PostgresErrors() {}

    /** True if the connection is gone or refused: the server is down, restarting or killed us. */
    static boolean isConnectionLoss(SQLException e) {
        String state = e.getSQLState();
        if (state == null) {
            return false;
        }
        return state.startsWith("08")
                || state.equals("57P01") // admin_shutdown, also pg_terminate_backend
                || state.equals("57P02") // crash_shutdown
                || state.equals("57P03"); // cannot_connect_now: starting up
    }

    /** A connection attempt failed: retry if the server may come back, else explain. */
    static SQLException onConnect(PostgresConnectionConfig config, SQLException e) {
        String state = e.getSQLState() == null ? "" : e.getSQLState();
        if (state.equals("28P01") || state.equals("28000")) {
            throw new UnrecoverableException(
                    "PostgreSQL at "
                            + config
                            + " refused the login ("
                            + e.getMessage()
                            + "); fix the user and password given to"
                            + " PostgresConnectionConfig.credentials, or pg_hba.conf",
                    e);
        }
        if (state.equals("3D000")) {
            throw new UnrecoverableException(
                    "PostgreSQL at "
                            + config.url()
                            + " has no such database ("
                            + e.getMessage()
                            + "); create it or fix the database name in the URL",
                    e);
        }
        return e;
    }

    /** Every attempt to reach the server failed. */
    static SQLException unreachable(
            PostgresConnectionConfig config, String what, int attempts, SQLException e) {
        return new SQLException(
                "cannot "
                        + what
                        + " after "
                        + attempts
                        + " attempts ("
                        + e.getMessage()
                        + "); start the PostgreSQL server or fix the host and port in the URL."
                        + " Nothing committed is lost: the job restarts from its last checkpoint"
                        + " and commits its prepared transactions once the server is back",
                e.getSQLState(),
                e);
    }

    /**
     * Explains a failure of a statement on {@code table} that a restart cannot fix; returns other
     * failures (lost connections among them) as they are.
     */
    static Exception onStatement(
            PostgresConnectionConfig config, TableMapping<?> table, SQLException e) {
        String state = e.getSQLState() == null ? "" : e.getSQLState();
        switch (state) {
            case UNDEFINED_TABLE:
                return new UnrecoverableException(
                        "table '"
                                + table.table()
                                + "' does not exist in "
                                + config.url()
                                + " ("
                                + e.getMessage()
                                + "); create it, for example "
                                + table.suggestedDdl()
                                + ", or fix the table name given to the sink",
                        e);
            case UNDEFINED_COLUMN:
                return new UnrecoverableException(
                        "table '"
                                + table.table()
                                + "' lacks a column the sink writes ("
                                + e.getMessage()
                                + "); add it, or fix the sink's columns "
                                + table.columns(),
                        e);
            case INSUFFICIENT_PRIVILEGE:
                return new UnrecoverableException(
                        "user "
                                + (config.user() == null ? "(default)" : config.user())
                                + " may not write table '"
                                + table.table()
                                + "' ("
                                + e.getMessage()
                                + "); run "
                                + table.suggestedGrant(config.user()),
                        e);
            case NO_UNIQUE_CONSTRAINT:
                return new UnrecoverableException(
                        "table '"
                                + table.table()
                                + "' has no primary key or unique index on "
                                + table.keyColumns()
                                + ", which INSERT … ON CONFLICT needs ("
                                + e.getMessage()
                                + "); run ALTER TABLE "
                                + table.table()
                                + " ADD PRIMARY KEY ("
                                + String.join(", ", table.keyColumns())
                                + ")",
                        e);
            default:
                return e;
        }
    }
}
