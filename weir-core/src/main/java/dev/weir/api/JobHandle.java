package dev.weir.api;

import java.time.Duration;
import java.util.concurrent.TimeoutException;

/**
 * A running job, returned by {@link Pipeline#start()}.
 *
 * <p>Thread-safe. Every thread the job started has ended by the time {@link #await} returns or
 * throws.
 */
public interface JobHandle {
    /** The job's name. */
    String name();

    /**
     * Waits for the job to end.
     *
     * @return the result of a job that finished its input
     * @throws JobFailedException if the job failed; {@code getCause()} is the root cause
     * @throws java.util.concurrent.CancellationException if the job was cancelled
     */
    JobResult await() throws InterruptedException;

    /**
     * Waits at most {@code timeout} for the job to end.
     *
     * @throws TimeoutException if it is still running then
     */
    JobResult await(Duration timeout) throws InterruptedException, TimeoutException;

    /** Asks the job to stop; {@link #await} then throws a cancellation. Idempotent. */
    void cancel();

    /** True once the job has ended, in any way. */
    boolean isDone();
}
