package dev.weir.jdbc;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real PostgreSQL server from Maven (zonky's embedded binaries), started once per test JVM with
 * prepared transactions enabled, plus helpers for fresh tables.
 */
public final class TestPostgres {
    private static final AtomicInteger TABLES = new AtomicInteger();
    private static EmbeddedPostgres shared;

    private TestPostgres() {}

    /** The shared server, started on first use (it stops when the JVM exits). */
    public static synchronized EmbeddedPostgres shared() {
        if (shared == null) {
            try {
                shared =
                        EmbeddedPostgres.builder()
                                .setServerConfig("max_prepared_transactions", "20")
                                .start();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            Runtime.getRuntime().addShutdownHook(new Thread(TestPostgres::stopShared));
        }
        return shared;
    }

    private static synchronized void stopShared() {
        try {
            shared.close();
        } catch (IOException e) {
            // The JVM is exiting.
        }
    }

    /**
     * A server on its own data directory and port, which survives {@link EmbeddedPostgres#close} so
     * a test can restart it.
     */
    public static EmbeddedPostgres startOwn(
            Path dataDirectory, int port, boolean preparedTransactions) throws IOException {
        EmbeddedPostgres.Builder builder =
                EmbeddedPostgres.builder()
                        .setDataDirectory(dataDirectory)
                        .setCleanDataDirectory(false)
                        .setPort(port);
        if (preparedTransactions) {
            builder.setServerConfig("max_prepared_transactions", "20");
        }
        return builder.start();
    }

    /** Connection settings for {@code server} as the superuser. */
    public static PostgresConnectionConfig config(EmbeddedPostgres server) {
        return PostgresConnectionConfig.of(server.getJdbcUrl("postgres", "postgres"))
                .credentials("postgres", "postgres");
    }

    /** A table name not used before in this JVM. */
    public static String freshName(String stem) {
        return stem + "_" + ProcessHandle.current().pid() + "_" + TABLES.incrementAndGet();
    }

    /** Runs {@code sql} on {@code server}. */
    public static void execute(EmbeddedPostgres server, String sql) throws SQLException {
        try (Connection connection = server.getPostgresDatabase().getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }

    /** The first column of every row {@code sql} returns, as strings. */
    public static List<String> query(EmbeddedPostgres server, String sql) throws SQLException {
        List<String> values = new ArrayList<>();
        try (Connection connection = server.getPostgresDatabase().getConnection();
                Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery(sql)) {
            while (rs.next()) {
                values.add(rs.getString(1));
            }
        }
        return values;
    }

    /** The prepared transactions whose id starts with {@code prefix + ":"}. */
    public static List<String> prepared(EmbeddedPostgres server, String prefix)
            throws SQLException {
        try (Connection connection = server.getPostgresDatabase().getConnection()) {
            return PostgresTwoPhaseCommitSink.preparedTransactions(connection, prefix);
        }
    }
}
