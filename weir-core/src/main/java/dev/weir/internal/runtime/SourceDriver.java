package dev.weir.internal.runtime;

import dev.weir.api.source.ReadStatus;
import dev.weir.api.source.Source;
import dev.weir.api.source.SourceContext;
import dev.weir.api.source.SourceReader;
import dev.weir.internal.checkpoint.SplitState;
import dev.weir.internal.operators.Output;
import dev.weir.internal.testhooks.SeededBugs;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the splits assigned to one source subtask, round-robin, into the task's output.
 *
 * <p>A split that ends keeps, in every later checkpoint, its final position and reader state and is
 * marked ended; a restore does not open it again, so a restore from any checkpoint after the split
 * ended (the final checkpoint of a finished job included) reads none of it twice.
 *
 * <p>Single-threaded: only the source task calls it.
 */
final class SourceDriver {
    private final Source<Object> source;
    private final List<String> splits;
    private final SourceContext context;
    private final List<SourceReader<Object>> readers = new ArrayList<>();
    private final List<String> openSplits = new ArrayList<>();

    /** The splits that ended, with their final position and reader state, in order of ending. */
    private final Map<String, SplitState> endedSplits = new LinkedHashMap<>();

    private int next;

    /** Polls between two refreshes of {@link #lag}: a reader's lag is for metrics only. */
    private static final int POLLS_PER_LAG = 64;

    private int pollsToLag;

    /** The readers' summed lag at the last refresh, -1 if none can tell (read racily). */
    private long lag = -1;

    SourceDriver(Source<Object> source, List<String> splits, SourceContext context) {
        this.source = source;
        this.splits = List.copyOf(splits);
        this.context = context;
    }

    /**
     * Opens a reader per split, moved to the {@code restored} position (and reader state) where
     * given; a split restored as ended stays ended and gets no reader. A source that cannot replay
     * is never asked to seek.
     */
    void open(Map<String, SplitState> restored) throws Exception {
        for (String split : splits) {
            SplitState state = restored.get(split);
            if (state != null && state.ended()) {
                if (!SeededBugs.REREAD_ENDED_SPLITS) {
                    endedSplits.put(split, state);
                    continue;
                }
                state = null; // the seeded bug: read the ended split again from its start
            }
            SourceReader<Object> reader = source.openReader(split, context);
            readers.add(reader);
            openSplits.add(split);
            if (state != null && source.isReplayable()) {
                if (state.readerState() != null) {
                    reader.restoreState(state.readerState());
                }
                reader.seek(state.position());
            }
        }
    }

    /** The state of every assigned split, for a checkpoint: ended ones as they ended. */
    Map<String, SplitState> snapshot() throws Exception {
        Map<String, SplitState> states = new LinkedHashMap<>(endedSplits);
        for (int i = 0; i < readers.size(); i++) {
            SourceReader<Object> reader = readers.get(i);
            states.put(
                    openSplits.get(i),
                    new SplitState(reader.position(), reader.snapshotState(), false));
        }
        return states;
    }

    /**
     * Polls up to {@code maxRecords} from the next open split; returns true if any split made
     * progress or ended.
     */
    boolean poll(Output output, int maxRecords) throws Exception {
        if (readers.isEmpty()) {
            return false;
        }
        if (--pollsToLag <= 0) {
            pollsToLag = POLLS_PER_LAG;
            refreshLag();
        }
        int tries = readers.size();
        for (int i = 0; i < tries; i++) {
            if (next >= readers.size()) {
                next = 0;
            }
            SourceReader<Object> reader = readers.get(next);
            ReadStatus status = reader.poll(output, maxRecords);
            if (status == ReadStatus.END_OF_INPUT) {
                endedSplits.put(
                        openSplits.get(next),
                        new SplitState(reader.position(), reader.snapshotState(), true));
                reader.close();
                readers.remove(next);
                openSplits.remove(next);
                if (readers.isEmpty()) {
                    lag = 0; // all read
                }
                return true;
            }
            next++;
            if (status == ReadStatus.MORE_AVAILABLE) {
                return true;
            }
        }
        return false;
    }

    private void refreshLag() {
        long sum = -1;
        for (int i = 0; i < readers.size(); i++) {
            long readerLag = readers.get(i).lag();
            if (readerLag >= 0) {
                sum = Math.max(sum, 0) + readerLag;
            }
        }
        lag = sum;
    }

    /**
     * The open readers' summed lag ({@link SourceReader#lag}) as last refreshed, 0 once every split
     * ended, -1 if no reader can tell. Any thread (a racy read).
     */
    long lag() {
        return lag;
    }

    boolean ended() {
        return readers.isEmpty();
    }

    void close() throws Exception {
        Exception first = null;
        for (SourceReader<Object> reader : readers) {
            try {
                reader.close();
            } catch (Exception e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        readers.clear();
        openSplits.clear();
        if (first != null) {
            throw first;
        }
    }
}
