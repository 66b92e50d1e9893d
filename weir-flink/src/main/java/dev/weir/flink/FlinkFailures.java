package dev.weir.flink;

import dev.weir.api.UnrecoverableException;
import java.io.IOException;
import java.io.ObjectOutputStream;
import java.io.OutputStream;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
import org.apache.flink.runtime.execution.SuppressRestartsException;

/**
 * What a failure of Weir code inside a Flink task becomes before Flink sees it.
 *
 * <ul>
 *   <li>A failure that a restart cannot fix ({@link UnrecoverableException#isUnrecoverable}):
 *       Weir's own runtime fails the job at once instead of spending its restart strategy on it; on
 *       Flink it is wrapped in Flink's {@link SuppressRestartsException}, which Flink's failover
 *       takes as a failure not to restart. The job's result still names the Weir exception: {@link
 *       FlinkJobHandle#rootCause} passes over Flink's wrappers.
 *   <li>Flink sends a task's failure to its JobManager serialised; one that does not serialise
 *       arrives as text only, in which failover no longer sees the wrapper, so such an
 *       unrecoverable failure travels as an {@link UnrecoverableException} with its text.
 *   <li>A failure whose causes form a loop ({@code a.initCause(b); b.initCause(a)}) or go on
 *       without end: Flink walks a failure's causes without a bound, and its task would hang, so
 *       such a failure travels as one exception with its text and stack trace, without causes.
 * </ul>
 *
 * The adapters of sources, functions, key selectors and sinks call {@link #throwReplacement} in
 * their {@code catch} and then rethrow the failure itself.
 */
final class FlinkFailures {
    /** The most causes Weir looks at; a longer chain counts as endless. */
    private static final int MAX_CAUSES = 100;

    private FlinkFailures() {}

    /**
     * Throws what Flink must see in place of {@code failure}, if it must see something else;
     * returns otherwise, and the caller rethrows {@code failure} as it is.
     */
    static void throwReplacement(Throwable failure) {
        boolean unrecoverable = UnrecoverableException.isUnrecoverable(failure);
        if (causesLoop(failure)) {
            String text =
                    failure
                            + " (its causes form a loop or go on without end, which Flink cannot"
                            + " take: sent without them)";
            RuntimeException standIn =
                    unrecoverable ? new UnrecoverableException(text) : new RuntimeException(text);
            standIn.setStackTrace(failure.getStackTrace());
            if (unrecoverable) {
                throw new SuppressRestartsException(standIn);
            }
            throw standIn;
        }
        if (unrecoverable) {
            throw new SuppressRestartsException(sendable(failure));
        }
    }

    /** Whether {@code failure}'s causes come back to one already seen, or pass the bound. */
    static boolean causesLoop(Throwable failure) {
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        int depth = 0;
        for (Throwable t = failure; t != null; t = t.getCause(), depth++) {
            if (!seen.add(t) || depth >= MAX_CAUSES) {
                return true;
            }
        }
        return false;
    }

    /**
     * {@code failure} if it serialises; else an {@link UnrecoverableException} with its text and
     * stack trace.
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
        for (Throwable t = failure; t != null && depth < MAX_CAUSES; t = t.getCause(), depth++) {
            if (UnrecoverableException.isUnrecoverable(t)
                    && !UnrecoverableException.isUnrecoverable(t.getCause())) {
                return t.getClass() == UnrecoverableException.class ? t.getMessage() : t.toString();
            }
        }
        return failure.toString();
    }
}
