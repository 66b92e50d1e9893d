package dev.weir.flink;

import dev.weir.api.UnrecoverableException;
import java.io.IOException;
import java.io.ObjectOutputStream;
import java.io.OutputStream;
import org.apache.flink.runtime.execution.SuppressRestartsException;

/**
 * Failures that a restart cannot fix, inside a Flink job. Weir's own runtime fails a job at once on
 * an {@link UnrecoverableException} (or damage a restart would only read again: {@link
 * UnrecoverableException#isUnrecoverable}) instead of spending its restart strategy on it; on Flink
 * the adapters of sources, functions and sinks do the same by wrapping such a failure in Flink's
 * {@link SuppressRestartsException}, which Flink's failover takes as a failure not to restart. The
 * job's result still names the Weir exception: {@link FlinkJobHandle#rootCause} passes over Flink's
 * wrappers.
 */
final class Unrecoverables {
    private Unrecoverables() {}

    /**
     * Throws {@code failure} wrapped in a {@link SuppressRestartsException} if no restart can fix
     * it; returns otherwise, and the caller rethrows {@code failure} as it is.
     */
    static void failWithoutRestarts(Throwable failure) {
        if (UnrecoverableException.isUnrecoverable(failure)) {
            throw new SuppressRestartsException(sendable(failure));
        }
    }

    /**
     * {@code failure} if it serialises, as Flink sends a task's failure to its JobManager that way;
     * else an {@link UnrecoverableException} with its text and stack trace. Flink sends a failure
     * that does not serialise as text only, and its failover then no longer sees the {@link
     * SuppressRestartsException} in it and restarts the job.
     */
    static Throwable sendable(Throwable failure) {
        try (ObjectOutputStream out = new ObjectOutputStream(OutputStream.nullOutputStream())) {
            out.writeObject(failure);
            return failure;
        } catch (IOException | RuntimeException notSerialisable) {
            UnrecoverableException standIn =
                    new UnrecoverableException(
                            unrecoverableText(failure)
                                    + " (in place of "
                                    + failure.getClass().getName()
                                    + ", which Flink cannot send to its JobManager as it is: "
                                    + notSerialisable
                                    + ")");
            standIn.setStackTrace(failure.getStackTrace());
            return standIn;
        }
    }

    /** The message of the first failure a restart cannot fix among {@code failure}'s causes. */
    private static String unrecoverableText(Throwable failure) {
        int depth = 0;
        for (Throwable t = failure; t != null && depth < 100; t = t.getCause(), depth++) {
            if (UnrecoverableException.isUnrecoverable(t)
                    && !UnrecoverableException.isUnrecoverable(t.getCause())) {
                return t.getClass() == UnrecoverableException.class ? t.getMessage() : t.toString();
            }
        }
        return failure.toString();
    }
}
