package dev.weir.internal.runtime;

import dev.weir.api.source.ReadStatus;
import dev.weir.api.source.Source;
import dev.weir.api.source.SourceContext;
import dev.weir.api.source.SourceReader;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the splits assigned to one source subtask, round-robin, into the task's output.
 *
 * <p>Single-threaded: only the source task calls it.
 */
final class SourceDriver {
    private final Source<Object> source;
    private final List<String> splits;
    private final SourceContext context;
    private final List<SourceReader<Object>> readers = new ArrayList<>();
    private final List<String> openSplits = new ArrayList<>();
    private final java.util.Map<String, Long> endedPositions = new java.util.LinkedHashMap<>();
    private int next;

    SourceDriver(Source<Object> source, List<String> splits, SourceContext context) {
        this.source = source;
        this.splits = List.copyOf(splits);
        this.context = context;
    }

    /**
     * Opens a reader per split, moved to {@code restored} positions (and reader states) where
     * given. A source that cannot replay is never asked to seek.
     */
    void open(java.util.Map<String, Long> restored, java.util.Map<String, byte[]> states)
            throws Exception {
        for (String split : splits) {
            SourceReader<Object> reader = source.openReader(split, context);
            if (source.isReplayable()) {
                byte[] state = states.get(split);
                if (state != null) {
                    reader.restoreState(state);
                }
                Long position = restored.get(split);
                if (position != null) {
                    reader.seek(position);
                }
            }
            readers.add(reader);
            openSplits.add(split);
        }
    }

    /** Position of every assigned split, for a checkpoint; ended splits keep their final one. */
    java.util.Map<String, Long> positions() {
        java.util.Map<String, Long> positions = new java.util.LinkedHashMap<>(endedPositions);
        for (int i = 0; i < readers.size(); i++) {
            positions.put(openSplits.get(i), readers.get(i).position());
        }
        return positions;
    }

    /** Reader states of the open splits that have any. */
    java.util.Map<String, byte[]> states() throws Exception {
        java.util.Map<String, byte[]> states = new java.util.LinkedHashMap<>();
        for (int i = 0; i < readers.size(); i++) {
            byte[] state = readers.get(i).snapshotState();
            if (state != null) {
                states.put(openSplits.get(i), state);
            }
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
        int tries = readers.size();
        for (int i = 0; i < tries; i++) {
            if (next >= readers.size()) {
                next = 0;
            }
            SourceReader<Object> reader = readers.get(next);
            ReadStatus status = reader.poll(output, maxRecords);
            if (status == ReadStatus.END_OF_INPUT) {
                endedPositions.put(openSplits.get(next), reader.position());
                reader.close();
                readers.remove(next);
                openSplits.remove(next);
                return true;
            }
            next++;
            if (status == ReadStatus.MORE_AVAILABLE) {
                return true;
            }
        }
        return false;
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
