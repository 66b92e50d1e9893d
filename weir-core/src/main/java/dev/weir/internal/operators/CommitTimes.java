package dev.weir.internal.operators;

/**
 * How many commits a sink subtask made and how long they took, for metrics: written by the sink's
 * task thread, read racily by the metrics thread (a figure may lag by one commit).
 */
public final class CommitTimes {
    private long commits;
    private long totalNanos;
    private long lastNanos;

    /** Times {@code commit} and counts it. */
    void time(CommitAction commit) throws Exception {
        long start = System.nanoTime();
        commit.run();
        long took = System.nanoTime() - start;
        totalNanos += took;
        lastNanos = took;
        commits++;
    }

    /** A commit to time. */
    @FunctionalInterface
    interface CommitAction {
        void run() throws Exception;
    }

    /** Commits so far. */
    public long commits() {
        return commits;
    }

    /** Nanoseconds spent in all those commits. */
    public long commitNanos() {
        return totalNanos;
    }

    /** Nanoseconds the newest commit took, or 0 before the first. */
    public long lastCommitNanos() {
        return lastNanos;
    }

    /** A sink operator that commits and times its commits. */
    public interface Timed {
        /** Its commit times. */
        CommitTimes commitTimes();
    }
}
