package dev.weir.flink;

import dev.weir.api.source.ReadStatus;
import dev.weir.api.source.Source;
import dev.weir.api.source.SourceContext;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceOutput;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.core.io.InputStatus;

/**
 * Drives the Weir readers of the splits assigned to one Flink source subtask, on Flink's task
 * thread, once the enumerator has said it assigns no more: {@link #pollNext} polls one split per
 * call (round robin), {@link #snapshotState} reads each open split's position between polls, so it
 * matches the records emitted before the barrier. When every split returned nothing, availability
 * is signalled again after {@value #IDLE_MILLIS} ms (a Weir {@code poll} never blocks; it asks to
 * be called again).
 *
 * @param <T> record type
 */
final class FlinkSourceReader<T> implements SourceReader<T, WeirSplit> {
    private static final long IDLE_MILLIS = 1;
    private static final Executor LATER =
            CompletableFuture.delayedExecutor(IDLE_MILLIS, TimeUnit.MILLISECONDS);

    private final Source<T> source;
    private final SourceReaderContext context;
    private final int batchSize;
    private final List<Open<T>> open = new ArrayList<>();
    private boolean noMoreSplits;
    private int next;

    /** An open split with its Weir reader. */
    private record Open<T>(WeirSplit split, dev.weir.api.source.SourceReader<T> reader) {}

    FlinkSourceReader(Source<T> source, SourceReaderContext context, int batchSize) {
        this.source = source;
        this.context = context;
        this.batchSize = batchSize;
    }

    @Override
    public void start() {}

    @Override
    public InputStatus pollNext(ReaderOutput<T> output) throws Exception {
        try {
            if (!noMoreSplits) {
                // Read nothing until the enumerator's last event for this reader has arrived.
                // Were the records of a first split to make this task fail first, that event
                // would find the task failed, and Flink would fail the job with "Task is not
                // running" instead of the user's exception (seen once in CI with no restarts).
                // Events arrive in order, so by now every split of this reader has too; the
                // enumerator sends it nothing later.
                return InputStatus.NOTHING_AVAILABLE;
            }
            for (int tried = 0; tried < open.size(); tried++) {
                next = next % open.size();
                Open<T> split = open.get(next);
                // Per-split outputs: a watermark strategy on the source generates per split.
                SourceOutput<T> splitOutput = output.createOutputForSplit(split.split().id());
                ReadStatus status = split.reader().poll(splitOutput::collect, batchSize);
                if (status == ReadStatus.END_OF_INPUT) {
                    split.reader().close();
                    output.releaseOutputForSplit(split.split().id());
                    open.remove(next);
                    return open.isEmpty() && noMoreSplits
                            ? InputStatus.END_OF_INPUT
                            : InputStatus.MORE_AVAILABLE;
                }
                next++;
                if (status == ReadStatus.MORE_AVAILABLE) {
                    return InputStatus.MORE_AVAILABLE;
                }
            }
            return open.isEmpty() && noMoreSplits
                    ? InputStatus.END_OF_INPUT
                    : InputStatus.NOTHING_AVAILABLE;
        } catch (Exception e) {
            FlinkFailures.throwReplacement(e);
            throw e;
        }
    }

    @Override
    public List<WeirSplit> snapshotState(long checkpointId) {
        List<WeirSplit> state = new ArrayList<>(open.size());
        for (Open<T> split : open) {
            try {
                state.add(
                        new WeirSplit(
                                split.split().index(),
                                split.split().id(),
                                split.reader().position(),
                                split.reader().snapshotState()));
            } catch (Exception e) {
                FlinkFailures.throwReplacement(e);
                throw new IllegalStateException(
                        "cannot snapshot split '" + split.split().id() + "'", e);
            }
        }
        return state;
    }

    @Override
    public CompletableFuture<Void> isAvailable() {
        return CompletableFuture.runAsync(() -> {}, LATER);
    }

    @Override
    public void addSplits(List<WeirSplit> splits) {
        SourceContext weirContext =
                new SourceContext() {
                    @Override
                    public int subtaskIndex() {
                        return context.getIndexOfSubtask();
                    }

                    @Override
                    public int parallelism() {
                        return context.currentParallelism();
                    }

                    @Override
                    public long nanoTime() {
                        return System.nanoTime();
                    }
                };
        for (WeirSplit split : splits) {
            try {
                dev.weir.api.source.SourceReader<T> reader =
                        source.openReader(split.id(), weirContext);
                if (split.state() != null) {
                    reader.restoreState(split.state());
                }
                if (split.position() > 0 && source.isReplayable()) {
                    reader.seek(split.position());
                }
                open.add(new Open<>(split, reader));
            } catch (Exception e) {
                FlinkFailures.throwReplacement(e);
                throw new IllegalStateException(
                        "cannot open split '" + split.id() + "' of a " + source.kind() + " source",
                        e);
            }
        }
    }

    @Override
    public void notifyNoMoreSplits() {
        noMoreSplits = true;
    }

    @Override
    public void close() throws Exception {
        try {
            for (Open<T> split : open) {
                split.reader().close();
            }
            open.clear();
        } catch (Exception e) {
            FlinkFailures.throwReplacement(e);
            throw e;
        }
    }
}
