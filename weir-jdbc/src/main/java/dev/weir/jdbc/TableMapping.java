package dev.weir.jdbc;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Where a sink's records go in a table: the table, its columns in the order {@link RowValues} gives
 * them, and, for upserts, the key columns. Immutable.
 *
 * <p>Names must be plain SQL identifiers ({@code [A-Za-z_][A-Za-z0-9_]*}, optionally {@code
 * schema.table}); they go into SQL text unquoted, so PostgreSQL folds them to lower case as it does
 * in {@code CREATE TABLE}. Values never go into SQL text: they are bound parameters.
 *
 * @param <T> record type
 */
public final class TableMapping<T> implements Serializable {
    private static final long serialVersionUID = 1L;
    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    /**
     * The values of one record, in the order of the mapping's columns. Called on the sink subtask's
     * thread, at least once per record (the upsert sink also takes each record's key from it, and a
     * replay calls it again), so it should be a pure function of the record. It must be
     * serializable: it travels with the sink.
     *
     * @param <T> record type
     */
    @FunctionalInterface
    public interface RowValues<T> extends Serializable {
        /**
         * The column values of {@code record}: Long, Integer, String, BigDecimal, and so on.
         *
         * @param record the record to write
         * @return one value per column of the mapping, in its order (null for SQL NULL); a wrong
         *     count fails the write with {@link IllegalArgumentException}
         */
        Object[] of(T record);
    }

    /** The table name, plain or {@code schema.name}. */
    private final String table;

    /** The columns written, in the order of {@link #values}. */
    private final List<String> columns;

    /** The key columns, empty for plain inserts. */
    private final List<String> keyColumns;

    /** Gives each record's values. */
    private final RowValues<T> values;

    private TableMapping(
            String table, List<String> columns, List<String> keyColumns, RowValues<T> values) {
        this.table = table;
        this.columns = columns;
        this.keyColumns = keyColumns;
        this.values = values;
    }

    /**
     * Rows of {@code table} with {@code columns}, whose values {@code values} gives. The rows are
     * plain inserts until {@link #key} names key columns.
     *
     * @param <T> record type
     * @param table the table, a plain name or {@code schema.name}
     * @param columns the columns written, at least one, each a plain SQL identifier
     * @param values gives each record's values in the order of {@code columns}; not null
     * @return the mapping
     * @throws IllegalArgumentException if a name is not a plain identifier or there is no column
     */
    public static <T> TableMapping<T> of(String table, List<String> columns, RowValues<T> values) {
        checkTable(table);
        if (columns.isEmpty()) {
            throw new IllegalArgumentException("a table mapping needs at least one column");
        }
        for (String column : columns) {
            checkIdentifier(column, "column");
        }
        return new TableMapping<>(
                table, List.copyOf(columns), List.of(), Objects.requireNonNull(values));
    }

    /**
     * The columns that identify a row: writes become {@code INSERT … ON CONFLICT (keys) DO UPDATE}
     * and the table needs a primary key or unique index on them.
     *
     * @param keyColumns the key columns, each one of the mapping's columns
     * @return a copy with these key columns, replacing any set before
     * @throws IllegalArgumentException if a key column is not among the columns
     */
    public TableMapping<T> key(String... keyColumns) {
        for (String key : keyColumns) {
            if (!columns.contains(key)) {
                throw new IllegalArgumentException(
                        "key column '" + key + "' is not among the columns " + columns);
            }
        }
        return new TableMapping<>(table, columns, List.of(keyColumns), values);
    }

    /** Checks that {@code table} is a plain name or {@code schema.name}. */
    static void checkTable(String table) {
        String[] parts = table.split("\\.", -1);
        if (parts.length > 2) {
            throw new IllegalArgumentException(
                    "table '" + table + "' is not a plain name or schema.name");
        }
        for (String part : parts) {
            checkIdentifier(part, "table");
        }
    }

    private static void checkIdentifier(String name, String what) {
        if (name == null || !IDENTIFIER.matcher(name).matches()) {
            throw new IllegalArgumentException(
                    what
                            + " name '"
                            + name
                            + "' is not a plain SQL identifier (letters, digits, underscores);"
                            + " rename it or create a view with such a name");
        }
    }

    /**
     * The table name.
     *
     * @return the table, as given to {@link #of}
     */
    public String table() {
        return table;
    }

    /**
     * The columns, in the order of {@link RowValues#of}.
     *
     * @return the columns, unmodifiable
     */
    public List<String> columns() {
        return columns;
    }

    /**
     * The key columns.
     *
     * @return the key columns, unmodifiable; empty for plain inserts
     */
    public List<String> keyColumns() {
        return keyColumns;
    }

    Object[] valuesOf(T record) {
        Object[] row = values.of(record);
        if (row.length != columns.size()) {
            throw new IllegalArgumentException(
                    "the sink's RowValues gave "
                            + row.length
                            + " values for the "
                            + columns.size()
                            + " columns "
                            + columns);
        }
        return row;
    }

    /** {@code INSERT INTO t (a, b) VALUES (?, ?)}, with ON CONFLICT … DO UPDATE when keyed. */
    String insertSql() {
        StringBuilder sql =
                new StringBuilder("INSERT INTO ")
                        .append(table)
                        .append(" (")
                        .append(String.join(", ", columns))
                        .append(") VALUES (")
                        .append(
                                String.join(
                                        ", ", java.util.Collections.nCopies(columns.size(), "?")))
                        .append(")");
        if (!keyColumns.isEmpty()) {
            sql.append(" ON CONFLICT (").append(String.join(", ", keyColumns)).append(")");
            List<String> updates = new ArrayList<>();
            for (String column : columns) {
                if (!keyColumns.contains(column)) {
                    updates.add(column + " = EXCLUDED." + column);
                }
            }
            sql.append(
                    updates.isEmpty()
                            ? " DO NOTHING"
                            : " DO UPDATE SET " + String.join(", ", updates));
        }
        return sql.toString();
    }

    /** A CREATE TABLE statement a message can suggest (column types are a guess to edit). */
    String suggestedDdl() {
        List<String> defs = new ArrayList<>();
        for (String column : columns) {
            defs.add(column + " <type>");
        }
        if (!keyColumns.isEmpty()) {
            defs.add("PRIMARY KEY (" + String.join(", ", keyColumns) + ")");
        }
        return "CREATE TABLE " + table + " (" + String.join(", ", defs) + ")";
    }

    /** The GRANT that lets {@code user} write the table this way. */
    String suggestedGrant(String user) {
        return "GRANT "
                + (keyColumns.isEmpty() ? "INSERT" : "SELECT, INSERT, UPDATE")
                + " ON "
                + table
                + " TO "
                + (user == null ? "<user>" : user);
    }

    @Override
    public String toString() {
        return table + columns + (keyColumns.isEmpty() ? "" : " key " + keyColumns);
    }
}
