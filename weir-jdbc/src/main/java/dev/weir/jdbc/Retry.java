package dev.weir.jdbc;

import java.sql.SQLException;
import java.time.Duration;

/** Bounded retries with exponential backoff, for operations that are safe to repeat. */
final class Retry {
    private Retry() {}

    /** One attempt of a repeatable database operation. */
    @FunctionalInterface
    interface Attempt<R> {
        R run() throws SQLException;
    }

    /**
     * Runs {@code attempt} until it succeeds, retrying while it fails with a lost or refused
     * connection, at most {@code config.attempts()} times. Other errors are thrown at once.
     */
    static <R> R run(PostgresConnectionConfig config, String what, Attempt<R> attempt)
            throws SQLException {
        Duration backoff = config.firstBackoff();
        for (int i = 1; ; i++) {
            try {
                return attempt.run();
            } catch (SQLException e) {
                if (!PostgresErrors.isConnectionLoss(e) || i >= config.attempts()) {
                    if (PostgresErrors.isConnectionLoss(e)) {
                        throw PostgresErrors.unreachable(config, what, i, e);
                    }
                    throw e;
                }
                PostgresConnectionConfig.log()
                        .info(
                                "cannot {} (attempt {} of {}: {}); retrying in {} ms",
                                what,
                                i,
                                config.attempts(),
                                e.getMessage(),
                                backoff.toMillis());
                PostgresConnectionConfig.sleep(backoff);
                backoff = backoff.multipliedBy(2);
            }
        }
    }
}
