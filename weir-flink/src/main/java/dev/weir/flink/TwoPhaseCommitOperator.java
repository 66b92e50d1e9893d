package dev.weir.flink;

import dev.weir.api.codec.Codec;
import dev.weir.api.sink.TransactionalWriter;
import dev.weir.api.sink.TwoPhaseCommitSink;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * Runs a Weir {@link TwoPhaseCommitSink} inside Flink's checkpoints, with Weir's protocol:
 *
 * <ol>
 *   <li><b>Phase 1 at the barrier:</b> {@link #prepareSnapshotPreBarrier} (before the barrier goes
 *       on) calls {@code prepareCommit(checkpointId)}; the committable joins the pending ones,
 *       which {@link #snapshotState} writes into the checkpoint (union list state, each entry with
 *       the subtask that prepared it).
 *   <li><b>Phase 2 after the checkpoint:</b> {@link #notifyCheckpointComplete} commits every
 *       pending committable up to that checkpoint.
 *   <li><b>Restore:</b> {@link #initializeState} commits again the restored committables this
 *       subtask owns (old subtask {@code j} with {@code j % p == subtask}; commits are idempotent),
 *       then {@code recoverOwned} aborts the rest and refuses output newer than the restored
 *       checkpoint.
 * </ol>
 *
 * Writer and committer are one operator, not Flink's Sink V2 writer plus committer, because Weir's
 * {@code prepareCommit} takes the checkpoint id (transaction names and the refusal of output newer
 * than a restored checkpoint depend on it) and Sink V2's {@code
 * CommittingSinkWriter.prepareCommit()} does not get one. At the end of a bounded input Flink takes
 * a final checkpoint and waits for it, so the tail is committed by the same two phases; without
 * checkpointing it is prepared and committed in {@link #finish}, as Weir's runtime does.
 */
final class TwoPhaseCommitOperator extends AbstractStreamOperator<Object>
        implements OneInputStreamOperator<Object, Object> {
    private static final long serialVersionUID = 1L;
    private final Shared<TwoPhaseCommitSink<Object, Object>> sink;
    private final String jobName;
    private final String sinkName;
    private final boolean checkpointing;
    private final Shared<AtomicInteger> attempts;

    private transient Codec<Object> codec;
    private transient TransactionalWriter<Object, Object> writer;
    private transient TreeMap<Long, Object> pending;
    private transient ListState<byte[]> pendingState;
    private transient int subtask;

    TwoPhaseCommitOperator(
            Shared<TwoPhaseCommitSink<Object, Object>> sink,
            String jobName,
            String sinkName,
            boolean checkpointing,
            Shared<AtomicInteger> attempts) {
        this.sink = sink;
        this.jobName = jobName;
        this.sinkName = sinkName;
        this.checkpointing = checkpointing;
        this.attempts = attempts;
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        try {
            super.initializeState(context);
            TwoPhaseCommitSink<Object, Object> target = sink.get();
            codec = target.committableCodec();
            pending = new TreeMap<>();
            pendingState =
                    context.getOperatorStateStore()
                            .getUnionListState(
                                    new ListStateDescriptor<>(
                                            "weir-pending-committables",
                                            PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO));
            subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
            FlinkProcessFunction.recordAttempt(attempts, getRuntimeContext().getTaskInfo());
            int parallelism = getRuntimeContext().getTaskInfo().getNumberOfParallelSubtasks();
            long restoredId = context.getRestoredCheckpointId().orElse(-1);
            writer =
                    target.createTransactionalWriter(
                            new SinkSubtask(jobName, sinkName, subtask, parallelism, restoredId));
            List<Object> restored = new ArrayList<>();
            if (context.isRestored()) {
                for (byte[] entry : pendingState.get()) {
                    DataInputStream in = new DataInputStream(new ByteArrayInputStream(entry));
                    int preparedBy = in.readInt();
                    in.readLong();
                    Object committable = codec.decode(in);
                    if (preparedBy % parallelism == subtask) {
                        writer.commit(committable);
                        restored.add(committable);
                    }
                }
            }
            writer.recoverOwned(List.copyOf(restored), subtask, parallelism);
        } catch (Exception e) {
            FlinkFailures.throwReplacement(e);
            throw e;
        }
    }

    @Override
    public void processElement(StreamRecord<Object> element) throws Exception {
        try {
            writer.write(element.getValue());
        } catch (Exception e) {
            FlinkFailures.throwReplacement(e);
            throw e;
        }
    }

    @Override
    public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
        try {
            super.prepareSnapshotPreBarrier(checkpointId);
            Object committable = writer.prepareCommit(checkpointId);
            if (committable != null) {
                pending.put(checkpointId, committable);
            }
        } catch (Exception e) {
            FlinkFailures.throwReplacement(e);
            throw e;
        }
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        List<byte[]> entries = new ArrayList<>(pending.size());
        for (Map.Entry<Long, Object> entry : pending.entrySet()) {
            entries.add(encode(entry.getKey(), entry.getValue()));
        }
        pendingState.update(entries);
    }

    private byte[] encode(long checkpointId, Object committable) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeInt(subtask);
            out.writeLong(checkpointId);
            codec.encode(committable, out);
        }
        return bytes.toByteArray();
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
        try {
            super.notifyCheckpointComplete(checkpointId);
            while (!pending.isEmpty() && pending.firstKey() <= checkpointId) {
                writer.commit(pending.pollFirstEntry().getValue());
            }
        } catch (Exception e) {
            FlinkFailures.throwReplacement(e);
            throw e;
        }
    }

    @Override
    public void finish() throws Exception {
        try {
            super.finish();
            if (!checkpointing) {
                Object committable = writer.prepareCommit(Long.MAX_VALUE);
                if (committable != null) {
                    writer.commit(committable);
                }
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
