package dev.weir.internal.operators;

import dev.weir.api.sink.IdempotentSink;
import dev.weir.api.testing.FaultPoint;
import dev.weir.internal.testhooks.FaultPoints;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs an {@link IdempotentSink}: keeps the last record per key since the previous barrier and
 * upserts them, with the checkpoint id, at the next barrier (so checkpoint n covers them), and at
 * the end of input. A replay rewrites the same keys; with deterministic values nothing changes.
 */
public final class IdempotentSinkOperator implements StreamOperator, CommitTimes.Timed {
    private static final Logger LOG = LoggerFactory.getLogger(IdempotentSinkOperator.class);

    private final IdempotentSink<Object, Object> sink;
    private final Map<Object, Object> pending = new LinkedHashMap<>();
    private IdempotentSink.UpsertWriter<Object> writer;
    private String name;
    private boolean checkpointing;
    private final CommitTimes commitTimes = new CommitTimes();

    public IdempotentSinkOperator(IdempotentSink<Object, Object> sink) {
        this.sink = sink;
    }

    @Override
    public void open(OperatorContext context) throws Exception {
        this.name = context.operatorName();
        this.checkpointing = context.checkpointing();
        writer = sink.createUpsertWriter(SubtaskSinkContext.of(context));
        FaultPoints.reach(FaultPoint.SINK_BEFORE_RECOVER);
        LOG.debug(
                "idempotent sink {} subtask {} starts; target holds checkpoint {}",
                name,
                context.subtaskIndex(),
                writer.lastCheckpointId());
    }

    @Override
    public void processElement(Object record) {
        try {
            pending.put(sink.keyOf(record), record);
        } catch (RuntimeException e) {
            throw new UserCodeException("sink '" + name + "' key", e);
        }
    }

    @Override
    public byte[] snapshotOperatorState(long checkpointId) throws Exception {
        // The upsert is this sink's pre-commit: durable in the target before the barrier moves on.
        FaultPoints.reach(FaultPoint.SINK_BEFORE_PRECOMMIT);
        flush(checkpointId);
        FaultPoints.reach(FaultPoint.SINK_AFTER_PRECOMMIT);
        return null;
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
        // Nothing to commit: the upserts are already visible. The points exist so the sink
        // conformance suite fails an idempotent sink at the same moments as a transactional one.
        FaultPoints.reach(FaultPoint.SINK_CHECKPOINT_COMPLETE_BEFORE_COMMIT);
        FaultPoints.reach(FaultPoint.SINK_AFTER_COMMIT);
    }

    private void flush(long checkpointId) throws Exception {
        if (!pending.isEmpty()) {
            commitTimes.time(() -> writer.upsert(new ArrayList<>(pending.values()), checkpointId));
            pending.clear();
        }
    }

    /**
     * Upserts written so far and their times. For this sink the upsert at the barrier is the commit
     * (the records are visible once it returns), so metrics report it as one; barriers with nothing
     * to write do not count.
     */
    @Override
    public CommitTimes commitTimes() {
        return commitTimes;
    }

    /**
     * With checkpoints, the final snapshot that follows flushes the tail under the checkpoint id
     * reserved for it; without, nothing follows, so the tail is written now (with no checkpoint id
     * to record: {@code Long.MAX_VALUE}).
     */
    @Override
    public void finish() throws Exception {
        if (!checkpointing) {
            flush(Long.MAX_VALUE);
        }
    }

    @Override
    public void close() throws Exception {
        if (writer != null) {
            writer.close();
        }
    }
}
