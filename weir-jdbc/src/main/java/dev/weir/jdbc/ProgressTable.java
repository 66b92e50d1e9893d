package dev.weir.jdbc;

import dev.weir.api.UnrecoverableException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * The table in which a PostgreSQL sink records, with its output, which checkpoint that output
 * belongs to: created on first use if missing, then checked for the privileges the sink needs, so a
 * user without them is told the statement to run instead of failing at the first checkpoint.
 *
 * <p>Called from a writer's constructor, on its own connection, before the connection's first
 * transaction; leaves the connection in autocommit mode off with no transaction open.
 */
final class ProgressTable {
    /** Advisory lock key ("weir" in ASCII) that serialises the creation of progress tables. */
    private static final long CREATE_LOCK = 0x77656972L;

    private ProgressTable() {}

    /**
     * Makes sure {@code table} exists with {@code columns} (DDL text inside the parentheses) and
     * that the user has {@code privileges} on it.
     *
     * @param sink what needs it, for messages ("the upsert sink")
     */
    static void ensure(
            Connection connection,
            PostgresConnectionConfig config,
            String table,
            String columns,
            List<String> privileges,
            String sink)
            throws SQLException {
        connection.setAutoCommit(false);
        String ddl = "CREATE TABLE " + table + " (" + columns + ")";
        String grant = "GRANT " + String.join(", ", privileges) + " ON " + table;
        try {
            // Only a missing table is created: CREATE TABLE IF NOT EXISTS would need the CREATE
            // privilege on the schema even when the table is there.
            if (!exists(connection, table)) {
                create(connection, table, columns);
            }
            for (String privilege : privileges) {
                if (!has(connection, table, privilege)) {
                    throw new UnrecoverableException(
                            "user "
                                    + (config.user() == null ? "(default)" : config.user())
                                    + " lacks the "
                                    + privilege
                                    + " privilege on "
                                    + sink
                                    + "'s progress table "
                                    + table
                                    + "; run "
                                    + grant
                                    + " TO "
                                    + (config.user() == null ? "<user>" : config.user()));
                }
            }
            connection.commit();
        } catch (SQLException e) {
            connection.rollback();
            if (PostgresErrors.INSUFFICIENT_PRIVILEGE.equals(e.getSQLState())) {
                throw new UnrecoverableException(
                        sink
                                + " cannot create its progress table "
                                + table
                                + " ("
                                + e.getMessage()
                                + "); create it once as a privileged user: "
                                + ddl
                                + ", and "
                                + grant
                                + " TO "
                                + (config.user() == null ? "<user>" : config.user()),
                        e);
            }
            throw e;
        } catch (RuntimeException e) {
            connection.rollback();
            throw e;
        }
    }

    private static boolean exists(Connection connection, String table) throws SQLException {
        try (PreparedStatement statement =
                connection.prepareStatement("SELECT to_regclass(?) IS NOT NULL")) {
            statement.setString(1, table);
            try (ResultSet rs = statement.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }

    private static void create(Connection connection, String table, String columns)
            throws SQLException {
        try (Statement statement = connection.createStatement()) {
            // Subtasks start together; the lock keeps their CREATEs from colliding.
            statement.execute("SELECT pg_advisory_xact_lock(" + CREATE_LOCK + ")");
            statement.execute("CREATE TABLE IF NOT EXISTS " + table + " (" + columns + ")");
        }
    }

    private static boolean has(Connection connection, String table, String privilege)
            throws SQLException {
        try (PreparedStatement statement =
                connection.prepareStatement(
                        "SELECT has_table_privilege(current_user, to_regclass(?), ?)")) {
            statement.setString(1, table);
            statement.setString(2, privilege);
            try (ResultSet rs = statement.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }
}
