package dev.weir.internal.operators;

import dev.weir.api.codec.Codec;
import dev.weir.api.sink.TransactionalWriter;
import dev.weir.api.sink.TwoPhaseCommitSink;
import dev.weir.api.testing.FaultPoint;
import dev.weir.internal.io.ByteArrayDataInput;
import dev.weir.internal.io.ByteArrayDataOutput;
import dev.weir.internal.testhooks.FaultPoints;
import dev.weir.internal.testhooks.SeededBugs;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Runs a {@link TwoPhaseCommitSink}: phase 1 ({@code prepareCommit}) at each barrier, phase 2
 * ({@code commit}) when the checkpoint is complete, and on restore re-commits what the checkpoint
 * held and aborts the rest (invariants 4, 6 and 7 of docs/design/001-checkpoints.md).
 *
 * <p>Its operator state is every prepared, not yet committed committable with its checkpoint id.
 */
public final class TwoPhaseCommitSinkOperator implements StreamOperator, CommitTimes.Timed {
    private final TwoPhaseCommitSink<Object, Object> sink;
    private final Codec<Object> codec;
    private final TreeMap<Long, Object> pending = new TreeMap<>();
    private final List<Object> restored = new ArrayList<>();
    private TransactionalWriter<Object, Object> writer;
    private String name;
    private boolean finished;
    private boolean checkpointing;

    /** The id of the last checkpoint whose barrier this subtask took (self-checks only). */
    private long lastBarrier = -1;

    /** Self-checks only: whether a record reached the writer since the last barrier. */
    private boolean wrote;

    /** Self-checks only: the pending checkpoints whose transaction holds records. */
    private final java.util.Set<Long> withOutput = new java.util.HashSet<>();

    // Metrics: written on the task's thread per commit, read racily by observers.
    private final CommitTimes commitTimes = new CommitTimes();

    public TwoPhaseCommitSinkOperator(TwoPhaseCommitSink<Object, Object> sink) {
        this.sink = sink;
        this.codec = sink.committableCodec();
    }

    @Override
    public void restoreOperatorState(List<byte[]> states) throws Exception {
        for (byte[] state : states) {
            String kind = kindOf(state);
            if (kind != null && !kind.equals(sink.kind())) {
                throw new dev.weir.api.UnrecoverableException(
                        "the restored checkpoint holds the state of a '"
                                + kind
                                + "' sink under this sink's name, and this pipeline's sink of"
                                + " that name is a '"
                                + sink.kind()
                                + "' sink: its prepared transactions cannot be read as this"
                                + " sink's. Keep the sink the checkpoint was taken with, or give"
                                + " the new sink another step name (and"
                                + " Pipeline.allowNonRestoredState(true) to drop the old one's"
                                + " state, whose last prepared output is then never committed)");
            }
            restored.addAll(decodePending(state, codec).values());
        }
    }

    /** Marks state that starts with the sink's kind (state written before starts with a count). */
    private static final int WITH_KIND = -2;

    /** The kind of sink that wrote {@code state}, or null if it was written before kinds were. */
    static String kindOf(byte[] state) throws java.io.IOException {
        ByteArrayDataInput in = new ByteArrayDataInput().reset(state, 0, state.length);
        return in.readInt() == WITH_KIND ? in.readUTF() : null;
    }

    /**
     * The prepared, not yet committed committables in one subtask's operator state, by the id of
     * the checkpoint whose barrier prepared them (the format {@link #snapshotOperatorState}
     * writes).
     */
    public static <C> TreeMap<Long, C> decodePending(byte[] state, Codec<C> codec)
            throws java.io.IOException {
        TreeMap<Long, C> pending = new TreeMap<>();
        ByteArrayDataInput in = new ByteArrayDataInput().reset(state, 0, state.length);
        int count = in.readInt();
        if (count == WITH_KIND) {
            in.readUTF();
            count = in.readInt();
        }
        for (int i = 0; i < count; i++) {
            long checkpointId = in.readLong();
            pending.put(checkpointId, codec.decode(in));
        }
        return pending;
    }

    @Override
    public void open(OperatorContext context) throws Exception {
        this.name = context.operatorName();
        this.checkpointing = context.checkpointing();
        this.writer = sink.createTransactionalWriter(SubtaskSinkContext.of(context));
        for (Object committable : restored) {
            FaultPoints.reach(FaultPoint.SINK_RECOMMIT);
            writer.commit(committable);
        }
        FaultPoints.reach(FaultPoint.SINK_BEFORE_RECOVER);
        if (!SeededBugs.SKIP_ABORT) {
            writer.recoverOwned(
                    List.copyOf(restored), context.subtaskIndex(), context.parallelism());
        }
        restored.clear();
    }

    @Override
    public void processElement(Object record) {
        if (SeededBugs.KILLED_AFTER_PRECOMMIT || SeededBugs.KILLED_AFTER_COMMIT) {
            wrote = true;
        }
        try {
            writer.write(record);
        } catch (Exception e) {
            throw new UserCodeException("sink '" + name + "'", e);
        }
    }

    @Override
    public byte[] snapshotOperatorState(long checkpointId) throws Exception {
        FaultPoints.reach(FaultPoint.SINK_BEFORE_PRECOMMIT);
        lastBarrier = checkpointId;
        Object committable = writer.prepareCommit(checkpointId);
        if (committable != null && SeededBugs.COMMIT_BEFORE_COMPLETE) {
            // Before the fault point: a crash there has already committed this transaction.
            writer.commit(committable);
        } else if (committable != null) {
            pending.put(checkpointId, committable);
        }
        boolean holdsOutput = committable != null && wrote;
        wrote = false;
        if (holdsOutput && SeededBugs.KILLED_AFTER_COMMIT) {
            withOutput.add(checkpointId);
        }
        if (holdsOutput || !SeededBugs.KILLED_AFTER_PRECOMMIT) {
            // A self-check's kill here must land after a transaction with output, or its bug
            // does nothing to see: a source slow to start (Kafka's, after a broker restart) can
            // leave the first checkpoints empty, and some sinks (the log sink) prepare a
            // transaction without records too.
            FaultPoints.reach(FaultPoint.SINK_AFTER_PRECOMMIT);
        }
        ByteArrayDataOutput out = new ByteArrayDataOutput(256);
        out.writeInt(WITH_KIND);
        out.writeUTF(sink.kind());
        out.writeInt(pending.size());
        for (Map.Entry<Long, Object> entry : pending.entrySet()) {
            out.writeLong(entry.getKey());
            codec.encode(entry.getValue(), out);
        }
        return out.toByteArray();
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
        FaultPoints.reach(FaultPoint.SINK_CHECKPOINT_COMPLETE_BEFORE_COMMIT);
        while (!pending.isEmpty() && pending.firstKey() <= checkpointId) {
            Map.Entry<Long, Object> entry = pending.pollFirstEntry();
            timedCommit(entry.getValue());
            boolean holdsOutput = withOutput.remove(entry.getKey());
            if (!SeededBugs.KILLED_AFTER_COMMIT || (holdsOutput && entry.getKey() == lastBarrier)) {
                // A self-check's kill here must land after a commit of output (as after a
                // pre-commit), while the checkpoint just committed is the newest complete one:
                // this subtask has not yet taken a newer barrier, so no newer checkpoint can have
                // completed. Otherwise a newer one completed while this notification waited
                // behind its barrier, and restoring the second newest (or losing the newest to a
                // power cut) restores exactly what was committed.
                FaultPoints.reach(FaultPoint.SINK_AFTER_COMMIT);
            }
        }
    }

    @Override
    public void finish() throws Exception {
        finished = true;
        if (!checkpointing) {
            Object committable = writer.prepareCommit(Long.MAX_VALUE);
            if (committable != null) {
                timedCommit(committable);
            }
        }
    }

    /** Phase 2 for one committable, timed for metrics. */
    private void timedCommit(Object committable) throws Exception {
        commitTimes.time(() -> writer.commit(committable));
    }

    /** Transactions committed in phase 2 and their times (metrics). */
    @Override
    public CommitTimes commitTimes() {
        return commitTimes;
    }

    @Override
    public boolean awaitsCommit() {
        return finished && !pending.isEmpty();
    }

    @Override
    public void close() throws Exception {
        if (writer != null) {
            writer.close();
        }
    }
}
