package dev.weir.dashboard;

import dev.weir.api.JobListener;
import dev.weir.api.checkpoint.CheckpointStats;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Objects;

/**
 * The failures of a job with their causes, kept for the dashboard: a {@link JobListener} that also
 * passes every call on to the listener the pipeline had before ({@link
 * WeirDashboard#recordFailures}). Keeps the newest {@value #KEPT} failures. Thread-safe.
 */
public final class FailureLog implements JobListener {
    /** How many failures are kept. */
    public static final int KEPT = 100;

    /**
     * One failure of the job.
     *
     * @param attempt as {@link JobListener#onFailure} tells it: the restarts so far, this one
     *     included when it restarts
     * @param epochMillis when the job heard of it
     * @param willRestart whether the restart strategy restarts the job
     * @param cause the cause, {@code class: message}
     * @param causedBy the causes of the cause, outermost first (at most eight; unmodifiable)
     */
    public record Failure(
            int attempt,
            long epochMillis,
            boolean willRestart,
            String cause,
            List<String> causedBy) {}

    private final JobListener next;
    private final Deque<Failure> failures = new ArrayDeque<>();
    private long total;

    FailureLog(JobListener next) {
        this.next = Objects.requireNonNull(next, "next");
    }

    @Override
    public void onCheckpointComplete(CheckpointStats stats) {
        next.onCheckpointComplete(stats);
    }

    @Override
    public void onFailure(Throwable cause, int attempt, boolean willRestart) {
        List<String> causedBy = new ArrayList<>();
        Throwable inner = cause.getCause();
        while (inner != null && inner != cause && causedBy.size() < 8) {
            causedBy.add(describe(inner));
            inner = inner.getCause();
        }
        Failure failure =
                new Failure(
                        attempt,
                        System.currentTimeMillis(),
                        willRestart,
                        describe(cause),
                        List.copyOf(causedBy));
        synchronized (this) {
            failures.addLast(failure);
            total++;
            if (failures.size() > KEPT) {
                failures.removeFirst();
            }
        }
        next.onFailure(cause, attempt, willRestart);
    }

    @Override
    public void onRestore(long checkpointId, Path path) {
        next.onRestore(checkpointId, path);
    }

    /**
     * The failures kept, oldest first.
     *
     * @return a copy
     */
    public synchronized List<Failure> failures() {
        return List.copyOf(failures);
    }

    /**
     * How many failures there were, including those no longer kept.
     *
     * @return the count
     */
    public synchronized long total() {
        return total;
    }

    private static String describe(Throwable t) {
        String message = t.getMessage();
        return t.getClass().getName() + (message == null ? "" : ": " + message);
    }
}
