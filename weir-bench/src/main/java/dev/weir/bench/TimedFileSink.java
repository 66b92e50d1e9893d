package dev.weir.bench;

import dev.weir.api.codec.Codec;
import dev.weir.api.sink.FileSink;
import dev.weir.api.sink.SinkContext;
import dev.weir.api.sink.TransactionalWriter;
import dev.weir.api.sink.TwoPhaseCommitSink;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * A FileSink that measures commit latency: from the moment a checkpoint is complete (told by the
 * job listener) to the end of the commit of its files.
 */
final class TimedFileSink<T> implements TwoPhaseCommitSink<T, FileSink.Committable> {
    static final Map<Long, Long> COMPLETED_NANOS = new ConcurrentHashMap<>();
    static final ConcurrentLinkedQueue<Long> COMMIT_LATENCY_NANOS = new ConcurrentLinkedQueue<>();

    private final FileSink<T> delegate;

    TimedFileSink(Path directory) {
        this.delegate = FileSink.<T>to(directory);
    }

    @Override
    public String kind() {
        return "file";
    }

    @Override
    public Codec<FileSink.Committable> committableCodec() {
        return delegate.committableCodec();
    }

    @Override
    public TransactionalWriter<T, FileSink.Committable> createTransactionalWriter(
            SinkContext context) throws Exception {
        TransactionalWriter<T, FileSink.Committable> writer =
                delegate.createTransactionalWriter(context);
        return new TransactionalWriter<>() {
            @Override
            public void write(T record) throws Exception {
                writer.write(record);
            }

            @Override
            public FileSink.Committable prepareCommit(long checkpointId) throws Exception {
                return writer.prepareCommit(checkpointId);
            }

            @Override
            public void commit(FileSink.Committable committable) throws Exception {
                writer.commit(committable);
                String name = committable.finished().get(0);
                long checkpoint = Long.parseLong(name.split("-")[2]);
                Long completed = COMPLETED_NANOS.get(checkpoint);
                if (completed != null) {
                    COMMIT_LATENCY_NANOS.add(System.nanoTime() - completed);
                }
            }

            @Override
            public void recoverOwned(
                    List<FileSink.Committable> committed, int subtask, int parallelism)
                    throws Exception {
                writer.recoverOwned(committed, subtask, parallelism);
            }

            @Override
            public void close() throws Exception {
                writer.close();
            }
        };
    }
}
