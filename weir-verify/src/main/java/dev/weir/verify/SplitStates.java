package dev.weir.verify;

import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Which source splits had ended in which checkpoint, as far as one round's children told: a split
 * whose {@code ENDED} line came before the {@code CHECKPOINT c} line is ended in every checkpoint
 * from c + 1 on (checkpoint c + 1 is triggered only after c completed; c itself may have been taken
 * before the split ended). Used to place kills in a split state and to report where kills landed.
 *
 * <p>Not thread-safe: the thread reading a child's output updates it, and the harness reads it
 * after joining that thread.
 */
public final class SplitStates {
    /** Where the source's splits were when a kill landed. */
    public enum State {
        /** No split had ended. */
        RUNNING,
        /** Some splits had ended (in this run, or in the checkpoint it restored). */
        ENDED,
        /** The run restored a checkpoint in which splits had ended. */
        RESTORED
    }

    /** Kill counts per state, and finished jobs started again. */
    public record Counts(int running, int ended, int restored, int reruns) {
        public static final Counts NONE = new Counts(0, 0, 0, 0);

        Counts plus(State state) {
            return new Counts(
                    running + (state == State.RUNNING ? 1 : 0),
                    ended + (state == State.ENDED ? 1 : 0),
                    restored + (state == State.RESTORED ? 1 : 0),
                    reruns);
        }

        Counts plusRerun() {
            return new Counts(running, ended, restored, reruns + 1);
        }

        Counts plus(Counts other) {
            return new Counts(
                    running + other.running,
                    ended + other.ended,
                    restored + other.restored,
                    reruns + other.reruns);
        }
    }

    /** Key c: the splits ended in checkpoints c and newer (until the next key). */
    private final TreeMap<Long, Set<String>> endedFrom = new TreeMap<>();

    /**
     * A run restored checkpoint {@code id}: what came after it is gone. Returns the splits that had
     * ended in it.
     */
    Set<String> restored(long id) {
        endedFrom.tailMap(id, false).clear();
        Map.Entry<Long, Set<String>> entry = endedFrom.floorEntry(id);
        return entry == null ? Set.of() : entry.getValue();
    }

    /** Checkpoint {@code id} completed while {@code ended} had ended. */
    void completed(long id, Set<String> ended) {
        endedFrom.put(id + 1, new HashSet<>(ended));
    }
}
