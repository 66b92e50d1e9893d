package dev.weir.internal.runtime;

import dev.weir.api.RestartStrategy;
import java.util.ArrayDeque;
import java.util.Random;

/**
 * Applies a {@link RestartStrategy}: given the time of a failure, returns how long to wait before
 * restarting, or -1 to give up. Single-threaded (the job's driver); time and randomness are
 * injected.
 */
final class RestartPolicy {
    private final RestartStrategy strategy;
    private final Random random;
    private final ArrayDeque<Long> failureTimes = new ArrayDeque<>();
    private int attempts;
    private long nextDelayNanos = -1;
    private long lastFailureNanos = Long.MIN_VALUE;

    RestartPolicy(RestartStrategy strategy, long seed) {
        this.strategy = strategy;
        this.random = new Random(seed);
    }

    int attempts() {
        return attempts;
    }

    /** Records a failure at {@code nowNanos}; returns the delay before restarting, or -1. */
    long onFailure(long nowNanos) {
        long delay = decide(nowNanos);
        lastFailureNanos = nowNanos;
        if (delay >= 0) {
            attempts++;
        }
        return delay;
    }

    private long decide(long nowNanos) {
        if (strategy instanceof RestartStrategy.FixedDelay fixed) {
            return attempts < fixed.maxAttempts() ? fixed.delay().toNanos() : -1;
        }
        if (strategy instanceof RestartStrategy.ExponentialBackoff backoff) {
            if (attempts >= backoff.maxAttempts()) {
                return -1;
            }
            boolean quiet =
                    lastFailureNanos != Long.MIN_VALUE
                            && nowNanos - lastFailureNanos >= backoff.resetAfter().toNanos();
            if (nextDelayNanos < 0 || quiet) {
                nextDelayNanos = backoff.initial().toNanos();
            }
            long base = nextDelayNanos;
            nextDelayNanos =
                    Math.min(backoff.max().toNanos(), (long) (base * backoff.multiplier()));
            double factor = 1 + backoff.jitter() * (2 * random.nextDouble() - 1);
            return Math.max(0, (long) (base * factor));
        }
        if (strategy instanceof RestartStrategy.FailureRate rate) {
            failureTimes.addLast(nowNanos);
            while (!failureTimes.isEmpty()
                    && nowNanos - failureTimes.peekFirst() > rate.window().toNanos()) {
                failureTimes.pollFirst();
            }
            return failureTimes.size() > rate.maxFailures() ? -1 : rate.delay().toNanos();
        }
        return -1;
    }
}
