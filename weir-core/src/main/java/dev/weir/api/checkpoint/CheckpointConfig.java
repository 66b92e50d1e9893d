package dev.weir.api.checkpoint;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * When and where checkpoints are taken, and what a new run resumes from.
 *
 * <p>Immutable; each {@code with…} method returns a copy. Validated when the pipeline starts.
 *
 * @param mode exactly-once (aligned), at-least-once, or none
 * @param interval time between periodic checkpoints; {@link Duration#ZERO} for on-demand only
 * @param timeout a checkpoint not complete after this long is aborted
 * @param maxConcurrent checkpoints in flight at once
 * @param minPause least time between the end of one checkpoint and the start of the next
 * @param directory where checkpoints are stored (one sub-directory per checkpoint)
 * @param retained complete checkpoints kept on disk (the newest ones)
 * @param resume what a new run restores: {@code "latest"} (the newest complete checkpoint in {@code
 *     directory}, or nothing if there is none), {@code "none"}, or a path to a checkpoint or
 *     savepoint directory
 * @param tolerableFailures checkpoints that may fail in a row (timed out, state not written) before
 *     the job fails with the cause; default 3. A job that cannot checkpoint makes no durable
 *     progress: a restart would replay everything since its last checkpoint, and an exactly-once
 *     sink can commit nothing, so its output piles up uncommitted. One failure in a row may be a
 *     passing hiccup (a slow disk hitting the timeout once) that is not worth a restart and its
 *     replay; three in a row are not. 0 fails the job at the first failed checkpoint (as Flink's
 *     default does). Failed savepoints only fail their own request.
 */
public record CheckpointConfig(
        CheckpointingMode mode,
        Duration interval,
        Duration timeout,
        int maxConcurrent,
        Duration minPause,
        Path directory,
        int retained,
        String resume,
        int tolerableFailures) {
    /** Validates the fields, naming the setting to change. */
    public CheckpointConfig {
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(interval, "interval");
        Objects.requireNonNull(timeout, "timeout");
        Objects.requireNonNull(minPause, "minPause");
        Objects.requireNonNull(resume, "resume");
        if (interval.isNegative() || timeout.isNegative() || minPause.isNegative()) {
            throw new IllegalArgumentException("checkpoint durations must not be negative");
        }
        if (mode != CheckpointingMode.NONE && timeout.isZero()) {
            throw new IllegalArgumentException("checkpoint timeout must be > 0");
        }
        if (maxConcurrent < 1 || maxConcurrent > 16) {
            throw new IllegalArgumentException(
                    "maxConcurrent must be within 1..16: " + maxConcurrent);
        }
        if (retained < 1 || retained > 1000) {
            throw new IllegalArgumentException("retained must be within 1..1000: " + retained);
        }
        if (tolerableFailures < 0 || tolerableFailures > 1_000_000) {
            throw new IllegalArgumentException(
                    "tolerableFailures must be within 0..1000000: " + tolerableFailures);
        }
        if (mode != CheckpointingMode.NONE && directory == null) {
            throw new IllegalArgumentException(
                    "checkpointing needs a directory; call CheckpointConfig.directory(path)");
        }
    }

    /** Checkpoints that may fail in a row before the job fails; see the class comment. */
    public static final int DEFAULT_TOLERABLE_FAILURES = 3;

    /** No checkpoints. */
    public static CheckpointConfig none() {
        return new CheckpointConfig(
                CheckpointingMode.NONE,
                Duration.ZERO,
                Duration.ofMinutes(10),
                1,
                Duration.ZERO,
                null,
                3,
                "none",
                DEFAULT_TOLERABLE_FAILURES);
    }

    /**
     * Exactly-once checkpoints every {@code interval} into {@code directory}, resuming from the
     * latest one; timeout 10 minutes, one at a time, 3 retained.
     */
    public static CheckpointConfig exactlyOnce(Duration interval, Path directory) {
        return new CheckpointConfig(
                CheckpointingMode.EXACTLY_ONCE,
                interval,
                Duration.ofMinutes(10),
                1,
                Duration.ZERO,
                directory,
                3,
                "latest",
                DEFAULT_TOLERABLE_FAILURES);
    }

    public CheckpointConfig withMode(CheckpointingMode mode) {
        return new CheckpointConfig(
                mode,
                interval,
                timeout,
                maxConcurrent,
                minPause,
                directory,
                retained,
                resume,
                tolerableFailures);
    }

    public CheckpointConfig withInterval(Duration interval) {
        return new CheckpointConfig(
                mode,
                interval,
                timeout,
                maxConcurrent,
                minPause,
                directory,
                retained,
                resume,
                tolerableFailures);
    }

    public CheckpointConfig withTimeout(Duration timeout) {
        return new CheckpointConfig(
                mode,
                interval,
                timeout,
                maxConcurrent,
                minPause,
                directory,
                retained,
                resume,
                tolerableFailures);
    }

    public CheckpointConfig withMaxConcurrent(int maxConcurrent) {
        return new CheckpointConfig(
                mode,
                interval,
                timeout,
                maxConcurrent,
                minPause,
                directory,
                retained,
                resume,
                tolerableFailures);
    }

    public CheckpointConfig withMinPause(Duration minPause) {
        return new CheckpointConfig(
                mode,
                interval,
                timeout,
                maxConcurrent,
                minPause,
                directory,
                retained,
                resume,
                tolerableFailures);
    }

    public CheckpointConfig withRetained(int retained) {
        return new CheckpointConfig(
                mode,
                interval,
                timeout,
                maxConcurrent,
                minPause,
                directory,
                retained,
                resume,
                tolerableFailures);
    }

    public CheckpointConfig withResume(String resume) {
        return new CheckpointConfig(
                mode,
                interval,
                timeout,
                maxConcurrent,
                minPause,
                directory,
                retained,
                resume,
                tolerableFailures);
    }

    /**
     * Lets {@code failures} checkpoints fail in a row before the job fails with the cause (default
     * {@value #DEFAULT_TOLERABLE_FAILURES}; 0 = fail at the first).
     */
    public CheckpointConfig withTolerableFailures(int failures) {
        return new CheckpointConfig(
                mode,
                interval,
                timeout,
                maxConcurrent,
                minPause,
                directory,
                retained,
                resume,
                failures);
    }
}
