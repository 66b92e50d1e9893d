package dev.weir.api;

/** Thrown by {@link JobHandle#await} when a job failed; the cause is the root cause. */
public final class JobFailedException extends RuntimeException {
    public JobFailedException(String jobName, Throwable cause) {
        super("job '" + jobName + "' failed: " + cause, cause);
    }
}
