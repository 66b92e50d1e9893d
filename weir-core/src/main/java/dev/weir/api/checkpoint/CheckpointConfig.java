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
    /**
     * Validates the fields, naming the setting to change.
     *
     * @param mode exactly-once, at-least-once, or none; not null
     * @param interval time between periodic checkpoints, zero for on-demand only; not negative
     * @param timeout time after which a checkpoint is aborted; must be positive unless {@code mode}
     *     is {@code NONE}
     * @param maxConcurrent checkpoints in flight at once, 1 to 16
     * @param minPause least time between one checkpoint's end and the next one's start; not
     *     negative
     * @param directory where checkpoints are stored; may be null only when {@code mode} is {@code
     *     NONE}
     * @param retained complete checkpoints kept on disk, 1 to 1000
     * @param resume {@code "latest"}, {@code "none"}, or a checkpoint or savepoint path; not null
     * @param tolerableFailures failed checkpoints in a row before the job fails, 0 to 1,000,000
     * @throws NullPointerException if {@code mode}, a duration or {@code resume} is null
     * @throws IllegalArgumentException if a value is out of range, {@code resume} is blank or a
     *     resume word with blanks, invisible characters or capitals ({@code " latest"}, {@code
     *     "None"}), or checkpointing is on without a directory
     */
    public CheckpointConfig {
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(interval, "interval");
        Objects.requireNonNull(timeout, "timeout");
        Objects.requireNonNull(minPause, "minPause");
        Objects.requireNonNull(resume, "resume");
        String bare = withoutBlanks(resume);
        if (bare.isEmpty()) {
            throw new IllegalArgumentException(
                    "an empty resume setting: pass \"latest\" (the newest complete checkpoint),"
                            + " \"none\" (start over) or the path of a checkpoint or savepoint");
        }
        for (String word : new String[] {"latest", "none"}) {
            if (!resume.equals(word) && bare.equalsIgnoreCase(word)) {
                String shown = visible(resume);
                throw new IllegalArgumentException(
                        "the resume setting \""
                                + shown
                                + "\" is not the word \""
                                + word
                                + "\" (it differs in blanks, invisible characters or letter case)"
                                + " and would be taken as the path of a checkpoint: pass \""
                                + word
                                + "\", or \"./"
                                + shown
                                + "\" for a directory of that name");
            }
        }
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
                    "checkpointing needs a directory; create the config with"
                            + " CheckpointConfig.exactlyOnce(interval, directory)");
        }
    }

    /** Checkpoints that may fail in a row before the job fails; see the class comment. */
    public static final int DEFAULT_TOLERABLE_FAILURES = 3;

    /**
     * No checkpoints.
     *
     * @return a config with mode {@code NONE}, no directory and resume {@code "none"}; a failure
     *     loses all state
     */
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
     *
     * @param interval time between checkpoints; {@link Duration#ZERO} for on-demand only
     * @param directory where checkpoints are stored; created if missing, and locked while the job
     *     runs, so two jobs cannot share it
     * @return the config; change the other settings with the {@code with…} methods
     * @throws IllegalArgumentException if {@code interval} is negative or {@code directory} is null
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

    /**
     * A copy with another checkpointing mode.
     *
     * @param mode exactly-once, at-least-once, or none
     * @return the copy
     * @throws IllegalArgumentException if {@code mode} is not {@code NONE} and there is no
     *     directory
     */
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

    /**
     * A copy with another time between periodic checkpoints.
     *
     * @param interval the time between checkpoint triggers; {@link Duration#ZERO} for on-demand
     *     only
     * @return the copy
     * @throws IllegalArgumentException if {@code interval} is negative
     */
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

    /**
     * A copy with another checkpoint timeout: a checkpoint not complete after this long is aborted
     * and counts as a failure (see {@link #tolerableFailures()}).
     *
     * @param timeout the time from trigger to abort; must be positive when checkpointing is on
     * @return the copy
     * @throws IllegalArgumentException if {@code timeout} is negative, or zero while checkpointing
     *     is on
     */
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

    /**
     * A copy that lets more (or fewer) checkpoints be in flight at once.
     *
     * @param maxConcurrent the most checkpoints in flight, 1 to 16
     * @return the copy
     * @throws IllegalArgumentException if {@code maxConcurrent} is outside 1..16
     */
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

    /**
     * A copy with another least pause between the end of one checkpoint and the start of the next.
     *
     * @param minPause the pause; {@link Duration#ZERO} for none
     * @return the copy
     * @throws IllegalArgumentException if {@code minPause} is negative
     */
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

    /**
     * A copy that keeps another number of complete checkpoints on disk; older ones are deleted.
     *
     * @param retained the newest complete checkpoints to keep, 1 to 1000
     * @return the copy
     * @throws IllegalArgumentException if {@code retained} is outside 1..1000
     */
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

    /**
     * A copy that resumes a new run from somewhere else.
     *
     * @param resume {@code "latest"}, {@code "none"}, or the path of a checkpoint or savepoint
     *     directory
     * @return the copy
     * @throws NullPointerException if {@code resume} is null
     * @throws IllegalArgumentException if {@code resume} is blank or a resume word with spaces or
     *     capitals ({@code "latest "})
     */
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
     *
     * @param failures failed checkpoints in a row to tolerate, 0 to 1,000,000
     * @return the copy
     * @throws IllegalArgumentException if {@code failures} is outside 0..1,000,000
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

    /**
     * {@code text} without the blanks around it, and without the invisible characters anywhere in
     * it: besides whitespace, the spaces {@link String#strip()} keeps (a no-break space pasted from
     * a document), format and control characters (zero-width spaces and joiners, direction marks, a
     * soft hyphen) and the letters that render as blank.
     */
    private static String withoutBlanks(String text) {
        int start = 0;
        int end = text.length();
        while (start < end && isBlank(text.charAt(start))) {
            start++;
        }
        while (end > start && isBlank(text.charAt(end - 1))) {
            end--;
        }
        StringBuilder kept = new StringBuilder(end - start);
        for (int i = start; i < end; i++) {
            char c = text.charAt(i);
            if (!isInvisible(c)) {
                kept.append(c);
            }
        }
        return kept.toString();
    }

    private static boolean isBlank(char c) {
        return Character.isWhitespace(c) || Character.isSpaceChar(c) || isInvisible(c);
    }

    private static boolean isInvisible(char c) {
        int type = Character.getType(c);
        return type == Character.FORMAT
                || type == Character.CONTROL
                || c == '\u034F' // combining grapheme joiner
                || c == '\u115F' // Hangul fillers
                || c == '\u1160'
                || c == '\u3164'
                || c == '\uFFA0'
                || c == '\u2800'; // braille blank
    }

    /**
     * {@code text} with every character outside printable ASCII written as an escape, and cut after
     * 200 characters.
     */
    private static String visible(String text) {
        int shownChars = Math.min(text.length(), 200);
        StringBuilder shown = new StringBuilder(shownChars + 16);
        for (int i = 0; i < shownChars; i++) {
            char c = text.charAt(i);
            switch (c) {
                case '\n' -> shown.append("\\n");
                case '\t' -> shown.append("\\t");
                case '\r' -> shown.append("\\r");
                case '"', '\\' -> shown.append('\\').append(c);
                default -> {
                    if (c >= 0x20 && c < 0x7F) {
                        shown.append(c);
                    } else {
                        shown.append(String.format(java.util.Locale.ROOT, "\\u%04X", (int) c));
                    }
                }
            }
        }
        if (shownChars < text.length()) {
            shown.append("... (").append(text.length()).append(" characters)");
        }
        return shown.toString();
    }
}
