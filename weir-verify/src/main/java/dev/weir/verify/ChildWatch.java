package dev.weir.verify;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * Reads the output of one verify child on its own thread: echoes what the child says, notes when it
 * restored, which checkpoints completed and which splits ended (into the round's {@link
 * SplitStates}), and completes {@link #due()} when a kill planned for a split state may land:
 *
 * <ul>
 *   <li>{@code ended}: some splits ended, others still run, and two checkpoints completed since the
 *       first split that had emitted records ended (so the newest complete checkpoint holds an
 *       ended split whose records a re-read would repeat);
 *   <li>{@code restored}: the child restored a checkpoint holding ended splits, and a checkpoint
 *       completed since (so what it read after the restore is committed).
 * </ul>
 *
 * <p>The harness reads the results after {@link #join()}.
 */
final class ChildWatch {
    private final Process child;
    private final SplitStates splits;
    private final String killAt;
    private final int totalSplits;
    private final PrintStream out;
    private final CompletableFuture<Void> due = new CompletableFuture<>();
    private final Thread thread;
    private final Set<String> ended = new HashSet<>();
    private long restoredAtMillis;
    private boolean restoredEnded;
    private int checkpointsSinceEnded = -1;
    private int checkpointsSinceRestore = -1;

    /**
     * @param killAt {@code ended}, {@code restored}, or null for no kill at a split state
     */
    ChildWatch(Process child, SplitStates splits, String killAt, int totalSplits, PrintStream out) {
        this.child = child;
        this.splits = splits;
        this.killAt = killAt;
        this.totalSplits = totalSplits;
        this.out = out;
        this.thread = new Thread(this::read, "verify-child-output");
        thread.start();
    }

    /** Completes when the planned split-state kill may land; never if there is none. */
    CompletableFuture<Void> due() {
        return due;
    }

    /** Waits until the child's output ended (it exited or was killed). */
    void join() throws InterruptedException {
        thread.join();
    }

    /** When the child restored its first checkpoint, 0 if it restored none. */
    long restoredAtMillis() {
        return restoredAtMillis;
    }

    /** Where the splits were when the child ended. */
    SplitStates.State state() {
        if (restoredEnded) {
            return SplitStates.State.RESTORED;
        }
        return ended.isEmpty() ? SplitStates.State.RUNNING : SplitStates.State.ENDED;
    }

    private void read() {
        try (BufferedReader reader =
                new BufferedReader(
                        new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = reader.readLine()) != null; ) {
                onLine(line);
            }
        } catch (IOException e) {
            // the child was killed
        }
    }

    private void onLine(String line) {
        if (line.startsWith("RESTORED ")) {
            String[] parts = line.split(" ");
            if (restoredAtMillis == 0) {
                restoredAtMillis = Long.parseLong(parts[2]);
            }
            Set<String> endedThere = splits.restored(Long.parseLong(parts[1]));
            ended.addAll(endedThere);
            if (!endedThere.isEmpty()) {
                restoredEnded = true;
                checkpointsSinceRestore = 0;
            }
        } else if (line.startsWith("CHECKPOINT ")) {
            splits.completed(Long.parseLong(line.substring("CHECKPOINT ".length())), ended);
            if (checkpointsSinceEnded >= 0) {
                checkpointsSinceEnded++;
            }
            if (checkpointsSinceRestore >= 0) {
                checkpointsSinceRestore++;
            }
        } else if (line.startsWith(PacedSource.ENDED)) {
            String[] parts = line.substring(PacedSource.ENDED.length()).split(" ");
            ended.add(parts[0]);
            if (checkpointsSinceEnded < 0 && Long.parseLong(parts[1]) > 0) {
                checkpointsSinceEnded = 0;
            }
        } else if (!line.equals("DONE") && !line.isBlank()) {
            out.println("  child: " + line);
        }
        if (killDue()) {
            due.complete(null);
        }
    }

    private boolean killDue() {
        if ("ended".equals(killAt)) {
            return checkpointsSinceEnded >= 2 && ended.size() < totalSplits;
        }
        if ("restored".equals(killAt)) {
            return checkpointsSinceRestore >= 1;
        }
        return false;
    }
}
