package dev.weir.api;

import java.time.Duration;
import java.util.Objects;

/**
 * What a job does when a task fails: restart from the latest checkpoint after a delay, or fail.
 *
 * <p>Each restart restores the newest complete checkpoint (or the job's start if there is none).
 */
public sealed interface RestartStrategy
        permits RestartStrategy.NoRestart,
                RestartStrategy.FixedDelay,
                RestartStrategy.ExponentialBackoff,
                RestartStrategy.FailureRate {
    /**
     * Fail the job at the first failure.
     *
     * @return a strategy that never restarts
     */
    static RestartStrategy none() {
        return new NoRestart();
    }

    /**
     * Restart up to {@code maxAttempts} times, waiting {@code delay} before each.
     *
     * @param maxAttempts restarts allowed in the life of the job (0: none)
     * @param delay wait before each restart
     * @return the strategy
     * @throws IllegalArgumentException if either is negative
     */
    static RestartStrategy fixedDelay(int maxAttempts, Duration delay) {
        return new FixedDelay(maxAttempts, delay);
    }

    /**
     * Restart with delays {@code initial, initial·multiplier, …} capped at {@code max}, each varied
     * by ±{@code jitter} (0..1); after {@code resetAfter} without failure the delay returns to
     * {@code initial}. At most {@code maxAttempts} restarts in total.
     *
     * @param initial the first delay
     * @param max the largest delay before jitter; at least {@code initial}
     * @param multiplier growth of the delay per consecutive failure; at least 1
     * @param jitter relative random variation of each delay, 0 to 1 (0.1 is ±10%)
     * @param resetAfter time without a failure after which the delay starts from {@code initial}
     *     again
     * @param maxAttempts restarts allowed in the life of the job (0: none)
     * @return the strategy
     * @throws IllegalArgumentException if a value is out of range
     */
    static RestartStrategy exponentialBackoff(
            Duration initial,
            Duration max,
            double multiplier,
            double jitter,
            Duration resetAfter,
            int maxAttempts) {
        return new ExponentialBackoff(initial, max, multiplier, jitter, resetAfter, maxAttempts);
    }

    /**
     * Restart after {@code delay} unless more than {@code maxFailures} failures happened within the
     * last {@code window}.
     *
     * @param maxFailures failures tolerated within {@code window}; one more fails the job
     * @param window the sliding time window over which failures are counted
     * @param delay wait before each restart
     * @return the strategy
     * @throws IllegalArgumentException if {@code maxFailures} or {@code delay} is negative
     */
    static RestartStrategy failureRate(int maxFailures, Duration window, Duration delay) {
        return new FailureRate(maxFailures, window, delay);
    }

    /**
     * The longest delay this strategy can wait before a restart.
     *
     * @return the delay, jitter included; zero if the strategy never waits
     */
    Duration maxDelay();

    /** Never restart. */
    record NoRestart() implements RestartStrategy {
        @Override
        public Duration maxDelay() {
            return Duration.ZERO;
        }
    }

    /**
     * Fixed delay.
     *
     * @param maxAttempts restarts allowed in total
     * @param delay wait before each restart
     */
    record FixedDelay(int maxAttempts, Duration delay) implements RestartStrategy {
        /**
         * Validates.
         *
         * @param maxAttempts restarts allowed in total; not negative
         * @param delay wait before each restart; not negative
         * @throws IllegalArgumentException if either is negative
         */
        public FixedDelay {
            requireNonNegative(maxAttempts, delay);
        }

        @Override
        public Duration maxDelay() {
            return delay;
        }
    }

    /**
     * Exponential backoff with jitter and reset.
     *
     * @param initial first delay
     * @param max largest delay
     * @param multiplier growth per consecutive failure (at least 1)
     * @param jitter relative random variation of each delay, 0..1
     * @param resetAfter quiet time after which the delay returns to {@code initial}
     * @param maxAttempts restarts allowed in total
     */
    record ExponentialBackoff(
            Duration initial,
            Duration max,
            double multiplier,
            double jitter,
            Duration resetAfter,
            int maxAttempts)
            implements RestartStrategy {
        /**
         * Validates.
         *
         * @param initial first delay
         * @param max largest delay; at least {@code initial}
         * @param multiplier growth per consecutive failure; at least 1
         * @param jitter relative random variation of each delay, 0 to 1
         * @param resetAfter quiet time after which the delay returns to {@code initial}
         * @param maxAttempts restarts allowed in total; not negative
         * @throws IllegalArgumentException if a value is out of range
         */
        public ExponentialBackoff {
            requireNonNegative(maxAttempts, initial);
            requireNonNegative(0, max);
            requireNonNegative(0, resetAfter);
            if (multiplier < 1 || jitter < 0 || jitter > 1 || max.compareTo(initial) < 0) {
                throw new IllegalArgumentException(
                        "exponential backoff needs multiplier >= 1, jitter in 0..1, max >= initial");
            }
        }

        @Override
        public Duration maxDelay() {
            return Duration.ofNanos((long) (max.toNanos() * (1 + jitter)));
        }
    }

    /**
     * Failure rate.
     *
     * @param maxFailures failures tolerated within {@code window}
     * @param window the sliding window
     * @param delay wait before each restart
     */
    record FailureRate(int maxFailures, Duration window, Duration delay)
            implements RestartStrategy {
        /**
         * Validates.
         *
         * @param maxFailures failures tolerated within {@code window}; not negative
         * @param window the sliding window
         * @param delay wait before each restart; not negative
         * @throws IllegalArgumentException if {@code maxFailures} or {@code delay} is negative
         */
        public FailureRate {
            requireNonNegative(maxFailures, delay);
            Objects.requireNonNull(window, "window");
        }

        @Override
        public Duration maxDelay() {
            return delay;
        }
    }

    private static void requireNonNegative(int count, Duration duration) {
        Objects.requireNonNull(duration, "duration");
        if (count < 0 || duration.isNegative()) {
            throw new IllegalArgumentException("restart counts and delays must not be negative");
        }
    }
}
