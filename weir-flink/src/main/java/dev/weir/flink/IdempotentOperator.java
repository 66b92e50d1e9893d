package dev.weir.flink;

import dev.weir.api.sink.IdempotentSink;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * Runs a Weir {@link IdempotentSink}: keeps the last record per key since the previous barrier and
 * upserts them with the checkpoint id before the barrier goes on ({@link
 * #prepareSnapshotPreBarrier}), as Weir's runtime does; a replay after a restore writes the same
 * values again. Without checkpointing the tail is upserted at the end with {@code Long.MAX_VALUE}.
 */
final class IdempotentOperator extends AbstractStreamOperator<Object>
        implements OneInputStreamOperator<Object, Object> {
    private static final long serialVersionUID = 1L;
    private final Shared<IdempotentSink<Object, Object>> sink;
    private final String jobName;
    private final String sinkName;
    private final boolean checkpointing;
    private final Shared<java.util.concurrent.atomic.AtomicInteger> attempts;

    private transient IdempotentSink<Object, Object> target;
    private transient IdempotentSink.UpsertWriter<Object> writer;
    private transient Map<Object, Object> latest;

    IdempotentOperator(
            Shared<IdempotentSink<Object, Object>> sink,
            String jobName,
            String sinkName,
            boolean checkpointing,
            Shared<java.util.concurrent.atomic.AtomicInteger> attempts) {
        this.attempts = attempts;
        this.sink = sink;
        this.jobName = jobName;
        this.sinkName = sinkName;
        this.checkpointing = checkpointing;
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        try {
            super.initializeState(context);
            FlinkProcessFunction.recordAttempt(attempts, getRuntimeContext().getTaskInfo());
            target = sink.get();
            latest = new LinkedHashMap<>();
            writer =
                    target.createUpsertWriter(
                            new SinkSubtask(
                                    jobName,
                                    sinkName,
                                    getRuntimeContext().getTaskInfo().getIndexOfThisSubtask(),
                                    getRuntimeContext().getTaskInfo().getNumberOfParallelSubtasks(),
                                    context.getRestoredCheckpointId().orElse(-1)));
            writer.lastCheckpointId();
        } catch (Exception e) {
            FlinkFailures.throwReplacement(e);
            throw e;
        }
    }

    @Override
    public void processElement(StreamRecord<Object> element) {
        try {
            Object record = element.getValue();
            latest.put(target.keyOf(record), record);
        } catch (Exception e) {
            FlinkFailures.throwReplacement(e);
            throw e;
        }
    }

    @Override
    public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
        try {
            super.prepareSnapshotPreBarrier(checkpointId);
            flush(checkpointId);
        } catch (Exception e) {
            FlinkFailures.throwReplacement(e);
            throw e;
        }
    }

    private void flush(long checkpointId) throws Exception {
        if (!latest.isEmpty()) {
            writer.upsert(new ArrayList<>(latest.values()), checkpointId);
            latest.clear();
        }
    }

    @Override
    public void finish() throws Exception {
        try {
            super.finish();
            if (!checkpointing) {
                flush(Long.MAX_VALUE);
            }
        } catch (Exception e) {
            FlinkFailures.throwReplacement(e);
            throw e;
        }
    }

    @Override
    public void close() throws Exception {
        try {
            if (writer != null) {
                writer.close();
            }
        } finally {
            super.close();
        }
    }
}
