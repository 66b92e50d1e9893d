package dev.weir.api;

/** Thrown by {@link JobHandle#await} when a job failed; the cause is the root cause. */
public final class JobFailedException extends RuntimeException {
    /**
     * Creates the exception for the job called {@code jobName}.
     *
     * @param jobName the failed job's name, shown in the message
     * @param cause the root cause of the failure
     */
    public JobFailedException(String jobName, Throwable cause) {
        super("job '" + jobName + "' failed: " + cause, cause);
    }
}
