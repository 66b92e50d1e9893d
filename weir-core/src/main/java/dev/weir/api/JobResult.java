package dev.weir.api;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * What an ended job reports.
 *
 * @param jobName the job's name
 * @param duration wall time from start to end, restarts included
 * @param restarts how many times the job was restarted after a failure
 * @param savepoint the savepoint it stopped with, or null if it finished its input
 */
public record JobResult(String jobName, Duration duration, int restarts, Path savepoint) {
    /**
     * The savepoint of a stop-with-savepoint, if that is how the job ended.
     *
     * @return the savepoint's directory, or empty if the job finished its input
     */
    public Optional<Path> stoppedWithSavepoint() {
        return Optional.ofNullable(savepoint);
    }
}
