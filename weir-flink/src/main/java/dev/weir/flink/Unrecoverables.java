package dev.weir.flink;

import dev.weir.api.UnrecoverableException;
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
            throw new SuppressRestartsException(failure);
        }
    }
}
