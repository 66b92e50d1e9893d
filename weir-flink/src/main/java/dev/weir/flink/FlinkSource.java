package dev.weir.flink;

import dev.weir.api.JobListener;
import dev.weir.api.checkpoint.CheckpointStats;
import dev.weir.api.source.Source;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * A Weir {@link Source} as a Flink source (FLIP-27): the enumerator hands split {@code j} of {@code
 * Source.splits(p)} to reader {@code j % p}, as Weir's runtime does; each reader drives Weir {@code
 * SourceReader}s and puts their positions (and extra state) into Flink's checkpoints as its splits'
 * state. A split that ended is dropped from the reader's state, so it is never reopened.
 *
 * @param <T> record type
 */
final class FlinkSource<T>
        implements org.apache.flink.api.connector.source.Source<T, WeirSplit, List<WeirSplit>> {
    private static final long serialVersionUID = 1L;
    private final Shared<Source<T>> source;
    private final Shared<JobListener> listener;
    private final int parallelism;
    private final int batchSize;

    /**
     * @param listener hears completed checkpoints (the first source of a job only), or null
     */
    FlinkSource(
            Shared<Source<T>> source,
            Shared<JobListener> listener,
            int parallelism,
            int batchSize) {
        this.source = source;
        this.listener = listener;
        this.parallelism = parallelism;
        this.batchSize = batchSize;
    }

    @Override
    public Boundedness getBoundedness() {
        // A Weir source says per split when it ends; the job runs in streaming mode either way.
        return Boundedness.CONTINUOUS_UNBOUNDED;
    }

    @Override
    public SourceReader<T, WeirSplit> createReader(SourceReaderContext context) {
        return new FlinkSourceReader<>(source.get(), context, batchSize);
    }

    @Override
    public SplitEnumerator<WeirSplit, List<WeirSplit>> createEnumerator(
            SplitEnumeratorContext<WeirSplit> context) {
        List<String> ids = source.get().splits(parallelism);
        List<WeirSplit> splits = new ArrayList<>(ids.size());
        for (int i = 0; i < ids.size(); i++) {
            splits.add(new WeirSplit(i, ids.get(i), 0, null));
        }
        return new Enumerator(context, splits);
    }

    @Override
    public SplitEnumerator<WeirSplit, List<WeirSplit>> restoreEnumerator(
            SplitEnumeratorContext<WeirSplit> context, List<WeirSplit> unassigned) {
        return new Enumerator(context, unassigned);
    }

    @Override
    public SimpleVersionedSerializer<WeirSplit> getSplitSerializer() {
        return WeirSplit.Serializer.INSTANCE;
    }

    @Override
    public SimpleVersionedSerializer<List<WeirSplit>> getEnumeratorCheckpointSerializer() {
        return WeirSplit.ListSerializer.INSTANCE;
    }

    /**
     * Assigns every split once, when its reader registers, then tells the reader there are no more.
     * Its checkpoint is the splits not assigned yet (assigned ones live in the readers' state;
     * Flink returns those of a failed reader through {@link #addSplitsBack}).
     */
    private final class Enumerator implements SplitEnumerator<WeirSplit, List<WeirSplit>> {
        private final SplitEnumeratorContext<WeirSplit> context;
        private final Map<Integer, List<WeirSplit>> pending = new TreeMap<>();

        Enumerator(SplitEnumeratorContext<WeirSplit> context, List<WeirSplit> splits) {
            this.context = context;
            for (WeirSplit split : splits) {
                owned(split.index() % context.currentParallelism()).add(split);
            }
        }

        private List<WeirSplit> owned(int reader) {
            return pending.computeIfAbsent(reader, r -> new ArrayList<>());
        }

        @Override
        public void start() {}

        @Override
        public void handleSplitRequest(int subtask, String host) {}

        @Override
        public void addSplitsBack(List<WeirSplit> splits, int subtask) {
            owned(subtask).addAll(splits);
        }

        @Override
        public void addReader(int subtask) {
            List<WeirSplit> splits = pending.remove(subtask);
            if (splits != null) {
                for (WeirSplit split : splits) {
                    context.assignSplit(split, subtask);
                }
            }
            context.signalNoMoreSplits(subtask);
        }

        @Override
        public List<WeirSplit> snapshotState(long checkpointId) {
            List<WeirSplit> all = new ArrayList<>();
            pending.values().forEach(all::addAll);
            return all;
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) {
            if (listener != null && listener.get() != null) {
                listener.get()
                        .onCheckpointComplete(
                                new CheckpointStats(
                                        checkpointId,
                                        false,
                                        System.currentTimeMillis(),
                                        0,
                                        0,
                                        0,
                                        null,
                                        List.of()));
            }
        }

        @Override
        public void close() {}
    }
}
