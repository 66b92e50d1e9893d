package dev.weir.jdbc;

import java.io.Serializable;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a PostgreSQL sink reaches its database: a JDBC URL, credentials, extra driver properties, and
 * how often to retry a lost connection. Immutable; the withers return copies.
 *
 * <p>Connections are retried with exponential backoff ({@link #retries}, default 6 attempts from
 * 100 ms, about 6 s in all): enough to ride out a server restart. After the last attempt the
 * failure names the URL and the fix.
 */
public final class PostgresConnectionConfig implements Serializable {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(PostgresConnectionConfig.class);

    /** The JDBC URL. */
    private final String url;

    /** The user, or null for the driver's default. */
    private final String user;

    /** The password, or null. */
    private final String password;

    /** Extra pgjdbc properties, by name. */
    private final Map<String, String> properties;

    /** Connection attempts in all, at least 1. */
    private final int attempts;

    /** The wait after the first failed attempt; it doubles after each next one. */
    private final Duration firstBackoff;

    private PostgresConnectionConfig(
            String url,
            String user,
            String password,
            Map<String, String> properties,
            int attempts,
            Duration firstBackoff) {
        this.url = url;
        this.user = user;
        this.password = password;
        this.properties = properties;
        this.attempts = attempts;
        this.firstBackoff = firstBackoff;
    }

    /**
     * A database at {@code url}, such as {@code jdbc:postgresql://localhost:5432/app}, with no
     * credentials (the driver's defaults) and the default retries.
     *
     * @param url a JDBC URL starting with {@code jdbc:postgresql:}; not null
     * @return the configuration
     * @throws IllegalArgumentException if {@code url} is not a PostgreSQL JDBC URL
     */
    public static PostgresConnectionConfig of(String url) {
        Objects.requireNonNull(url, "url");
        if (!url.startsWith("jdbc:postgresql:")) {
            throw new IllegalArgumentException(
                    "'"
                            + url
                            + "' is not a PostgreSQL JDBC URL; write jdbc:postgresql://host:port/db");
        }
        return new PostgresConnectionConfig(
                url, null, null, new TreeMap<>(), 6, Duration.ofMillis(100));
    }

    /**
     * Logs in as {@code user} with {@code password}.
     *
     * @param user the database user, or null for the driver's default
     * @param password the user's password, or null if the server does not ask for one
     * @return a copy with these credentials
     */
    public PostgresConnectionConfig credentials(String user, String password) {
        return new PostgresConnectionConfig(
                url, user, password, properties, attempts, firstBackoff);
    }

    /**
     * Sets a pgjdbc connection property, such as {@code ssl} or {@code connectTimeout}. Unless set
     * here, {@code reWriteBatchedInserts} is true and {@code connectTimeout} is 10 (seconds).
     *
     * @param name the property name, as pgjdbc documents it
     * @param value its value
     * @return a copy with the property set, replacing an earlier value of the same name
     */
    public PostgresConnectionConfig property(String name, String value) {
        Map<String, String> copy = new TreeMap<>(properties);
        copy.put(name, value);
        return new PostgresConnectionConfig(url, user, password, copy, attempts, firstBackoff);
    }

    /**
     * Connects at most {@code attempts} times, waiting {@code firstBackoff} after the first failure
     * and twice as long after each next one.
     *
     * @param attempts connection attempts in all, at least 1 (1 means no retry)
     * @param firstBackoff the wait after the first failed attempt
     * @return a copy with these retries
     * @throws IllegalArgumentException if {@code attempts} is less than 1
     */
    public PostgresConnectionConfig retries(int attempts, Duration firstBackoff) {
        if (attempts < 1) {
            throw new IllegalArgumentException("attempts must be at least 1");
        }
        return new PostgresConnectionConfig(
                url, user, password, properties, attempts, firstBackoff);
    }

    /**
     * The JDBC URL.
     *
     * @return the URL given to {@link #of}
     */
    public String url() {
        return url;
    }

    /**
     * The user name.
     *
     * @return the user, or null for the driver's default
     */
    public String user() {
        return user;
    }

    int attempts() {
        return attempts;
    }

    Duration firstBackoff() {
        return firstBackoff;
    }

    /**
     * Opens a connection, retrying lost or refused connections; {@code applicationName} shows in
     * {@code pg_stat_activity}, so an operator can see which sink subtask a session belongs to.
     */
    Connection open(String applicationName) throws SQLException {
        Properties props = new Properties();
        props.putAll(properties);
        if (user != null) {
            props.setProperty("user", user);
        }
        if (password != null) {
            props.setProperty("password", password);
        }
        props.putIfAbsent("reWriteBatchedInserts", "true");
        props.putIfAbsent("connectTimeout", "10");
        props.setProperty(
                "ApplicationName",
                applicationName.length() > 63 ? applicationName.substring(0, 63) : applicationName);
        return Retry.run(
                this,
                "connect to " + url,
                () -> {
                    try {
                        return DriverManager.getConnection(url, props);
                    } catch (SQLException e) {
                        throw PostgresErrors.onConnect(this, e);
                    }
                });
    }

    static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting to reconnect", e);
        }
    }

    static Logger log() {
        return LOG;
    }

    @Override
    public String toString() {
        return url + (user == null ? "" : " as " + user);
    }
}
