package dev.weir.jdbc;

import dev.weir.api.UnrecoverableException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Checks at a writer's start that the table exists with every column the sink writes and that the
 * user may write it, so a mistake fails the job at once with the fix instead of at the first batch,
 * or worse, after a restart loop.
 */
final class TableCheck {
    private TableCheck() {}

    static void check(Connection connection, PostgresConnectionConfig config, TableMapping<?> table)
            throws SQLException {
        String regclass;
        try (PreparedStatement statement =
                connection.prepareStatement("SELECT to_regclass(?)::text")) {
            statement.setString(1, table.table());
            try (ResultSet rs = statement.executeQuery()) {
                rs.next();
                regclass = rs.getString(1);
            }
        }
        if (regclass == null) {
            throw new UnrecoverableException(
                    "table '"
                            + table.table()
                            + "' does not exist in "
                            + config.url()
                            + "; create it, for example "
                            + table.suggestedDdl()
                            + ", or fix the table name given to the sink");
        }
        Set<String> present = new LinkedHashSet<>();
        try (PreparedStatement statement =
                connection.prepareStatement(
                        "SELECT attname FROM pg_attribute WHERE attrelid = to_regclass(?)"
                                + " AND attnum > 0 AND NOT attisdropped ORDER BY attnum")) {
            statement.setString(1, table.table());
            try (ResultSet rs = statement.executeQuery()) {
                while (rs.next()) {
                    present.add(rs.getString(1));
                }
            }
        }
        List<String> missing = new ArrayList<>();
        for (String column : table.columns()) {
            if (!present.contains(column.toLowerCase(java.util.Locale.ROOT))) {
                missing.add(column);
            }
        }
        if (!missing.isEmpty()) {
            throw new UnrecoverableException(
                    "table '"
                            + table.table()
                            + "' has no column "
                            + String.join(", ", missing)
                            + " (it has "
                            + present
                            + "); add it with ALTER TABLE "
                            + table.table()
                            + " ADD COLUMN "
                            + missing.get(0)
                            + " <type>, or fix the sink's columns");
        }
        List<String> needed =
                table.keyColumns().isEmpty()
                        ? List.of("INSERT")
                        : List.of("SELECT", "INSERT", "UPDATE");
        for (String privilege : needed) {
            try (PreparedStatement statement =
                    connection.prepareStatement(
                            "SELECT has_table_privilege(current_user, to_regclass(?), ?)")) {
                statement.setString(1, table.table());
                statement.setString(2, privilege);
                try (ResultSet rs = statement.executeQuery()) {
                    rs.next();
                    if (!rs.getBoolean(1)) {
                        throw new UnrecoverableException(
                                "user "
                                        + (config.user() == null ? "(default)" : config.user())
                                        + " lacks the "
                                        + privilege
                                        + " privilege on table '"
                                        + table.table()
                                        + "'; run "
                                        + table.suggestedGrant(config.user()));
                    }
                }
            }
        }
    }
}
