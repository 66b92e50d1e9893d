package dev.weir.internal.runtime;

import dev.weir.api.checkpoint.CheckpointingMode;
import dev.weir.api.state.KeyedSection;
import dev.weir.api.state.KeyedStateBackend;
import dev.weir.api.testing.FaultPoint;
import dev.weir.internal.checkpoint.TaskSnapshot;
import dev.weir.internal.checkpoint.TaskSnapshot.OperatorSnapshot;
import dev.weir.internal.operators.KeyedInput;
import dev.weir.internal.operators.OperatorContext;
import dev.weir.internal.operators.Output;
import dev.weir.internal.operators.ProcessingTimeService;
import dev.weir.internal.operators.RecordTime;
import dev.weir.internal.operators.StreamOperator;
import dev.weir.internal.testhooks.FaultPoints;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One subtask of a vertex: a chain of operators fed by a source or by input channels.
 *
 * <h2>How it is called</h2>
 *
 * A {@link Worker} calls {@link #doWork} repeatedly on its thread; each call does a bounded amount
 * of work (one input batch or one source poll) and returns whether anything moved, so one thread
 * can run many tasks (the cooperative model of Hazelcast Jet). Nothing in a call blocks. An
 * exception fails the task and, through the {@link Execution}, the job.
 *
 * <h2>Checkpoints</h2>
 *
 * A source task emits Barrier(n) when the coordinator offers it ({@link #offerBarrier}), recording
 * its split positions at exactly that point in its output. Other tasks snapshot when Barrier(n) has
 * arrived on every input that has not ended; in exactly-once mode an input that delivered it is not
 * read until then (alignment). The snapshot is a copy; the coordinator's I/O thread writes it. When
 * its input ends, a task takes a final snapshot that stands for it in every later checkpoint.
 */
public final class Task {
    /** Lifecycle of a task. */
    enum State {
        /** Not opened yet; the first {@code doWork} restores state and opens operators. */
        CREATED,
        /** Processing input. */
        RUNNING,
        /** Input ended and operators finished; sending the last batches and end-of-input. */
        DRAINING,
        /** Everything sent; a sink waits for the checkpoint that lets it commit its last data. */
        AWAITING_COMMIT,
        /** Everything sent; the task will do nothing more. */
        DONE
    }

    private final int index;
    private final String name;
    private final String sourceName;
    private final int batchSize;

    /**
     * Records a source may emit in its next poll: halved after a poll that took longer than {@link
     * #SLOW_POLL_NANOS}, doubled (up to the batch size) after a quick one. A slow function chained
     * into the source (a call out, a sleep) then runs a few records per step instead of a whole
     * batch, so a barrier, a commit or a stop waits for a few records, not for minutes. Starts at
     * one record (a slow first record costs one), doubling to 1,024 within 10 quick polls.
     */
    private int pollSize = 1;

    /** The job's clock (injected, so a simulated job stays deterministic). */
    private final java.util.function.LongSupplier nanoClock;

    /** The last batch taken, until its cost is reported: when, how many records, from where. */
    private long costStart;

    private int costRecords;
    private int costChannel;

    /** A poll slower than this shrinks the next one. */
    private static final long SLOW_POLL_NANOS = 5_000_000;

    /** A poll quicker than this grows the next one. */
    private static final long QUICK_POLL_NANOS = 1_000_000;

    private final SourceDriver source;

    /** Keeps this source subtask near its siblings in event time, or null ({@link #alignWith}). */
    private SourceAlignment sourceAlignment;

    /** This task's subtask index in {@link #sourceAlignment}. */
    private int alignedSubtask;

    /** False if the source's last poll found nothing to read (for {@link #sourceAlignment}). */
    private boolean lastPollRead = true;

    private final InputGate inputs;
    private final Output head;

    /** Held by the worker running a step of this task (see {@link Worker}). */
    private final AtomicBoolean claimed = new AtomicBoolean();

    /** The head operator when it is fed by keyed edges, which send {@link KeyedBatch}es. */
    private final KeyedInput keyedHead;

    private final Output sourceOutput;
    private final List<StreamOperator> operators;
    private final List<OperatorContext> contexts;
    private final RecordWriter[] writers; // an array: a pass over it allocates no iterator
    private final CheckpointCoordinator coordinator;
    private final CheckpointingMode mode;
    private final TaskRestore restore;
    private final LocalStateCache localState;
    private final ConcurrentLinkedQueue<ControlEvent.Barrier> triggers =
            new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<Long> completed = new ConcurrentLinkedQueue<>();

    private volatile long notifiedThrough = -1;
    private final Object finishLock = new Object();
    private final RecordTime time;
    private final ProcessingTimeService timeService;

    /** True if a step of the chain may block: the task then has a thread of its own. */
    private final boolean blocking;

    /** Alignment and watermarks of the input channels (null for a source task). */
    private final BarrierAlignment alignment;

    private final WatermarkTracker watermarks;

    /** The watermark this task passed on last. */
    private long watermark = Long.MIN_VALUE;

    // Metrics (docs/design/010-metrics.md): plain fields written per batch or per step by the
    // thread running the task, read racily by observers.

    /** Records handed to {@link #keyedHead} from keyed batches (counted per batch). */
    private long keyedRecordsIn;

    private long busyNanos;

    /**
     * When the step in progress began, or 0 between steps (metrics: read by other threads). Written
     * and read opaquely: a volatile write is a full fence on every step of every task, for a figure
     * that a metrics read may take a step late.
     */
    @SuppressWarnings("unused") // through STEP_SINCE
    private long stepSince;

    private static final java.lang.invoke.VarHandle STEP_SINCE;

    static {
        try {
            STEP_SINCE =
                    java.lang.invoke.MethodHandles.lookup()
                            .findVarHandle(Task.class, "stepSince", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The task's output waiting for room downstream. */
    private final Span backpressured = new Span();

    /** This source task's reads held back by {@link #sourceAlignment}. */
    private final Span alignmentPaused = new Span();

    private volatile TaskSnapshot finalSnapshot;
    private boolean finished;
    private State state = State.CREATED;

    /** The parts of a task; see {@link Execution} for how they are built. */
    record Parts(
            int index,
            String name,
            String sourceName,
            int batchSize,
            SourceDriver source,
            Output sourceOutput,
            InputGate inputs,
            Output head,
            List<StreamOperator> operators,
            List<OperatorContext> contexts,
            List<RecordWriter> writers,
            CheckpointCoordinator coordinator,
            CheckpointingMode mode,
            TaskRestore restore,
            LocalStateCache localState,
            RecordTime time,
            ProcessingTimeService timeService,
            boolean blocking,
            java.util.function.LongSupplier nanoClock) {}

    Task(Parts parts) {
        this.index = parts.index();
        this.name = parts.name();
        this.sourceName = parts.sourceName();
        this.batchSize = parts.batchSize();
        this.source = parts.source();
        this.sourceOutput = parts.sourceOutput();
        this.inputs = parts.inputs();
        this.head = parts.head();
        this.keyedHead =
                parts.source() == null
                                && !parts.operators().isEmpty()
                                && parts.operators().get(0) instanceof KeyedInput keyed
                        ? keyed
                        : null;
        this.operators = List.copyOf(parts.operators());
        this.contexts = List.copyOf(parts.contexts());
        this.writers = parts.writers().toArray(new RecordWriter[0]);
        this.coordinator = parts.coordinator();
        this.mode = parts.mode();
        this.restore = parts.restore();
        this.localState = parts.localState();
        this.time = parts.time();
        this.timeService = parts.timeService();
        this.blocking = parts.blocking();
        this.nanoClock = parts.nanoClock();
        if (inputs != null) {
            this.alignment =
                    new BarrierAlignment(
                            inputs.channelCount(), mode == CheckpointingMode.EXACTLY_ONCE);
            this.watermarks = new WatermarkTracker(inputs.channelCount());
            inputs.alignWith(alignment);
        } else {
            this.alignment = null;
            this.watermarks = null;
        }
    }

    public String name() {
        return name;
    }

    int index() {
        return index;
    }

    boolean isSource() {
        return source != null;
    }

    /** True if the task sends records to other tasks (its chain does not end in a sink only). */
    boolean hasOutputs() {
        return writers.length > 0;
    }

    boolean isBlocking() {
        return blocking;
    }

    boolean isDone() {
        return state == State.DONE;
    }

    /**
     * Claims the task for one step on the calling worker; false if another worker runs it now. The
     * claim (a volatile compare-and-set) and {@link #release} order all of the task's steps, on
     * whichever threads they run.
     */
    boolean tryClaim() {
        return !claimed.get() && claimed.compareAndSet(false, true);
    }

    /** Ends a step begun by {@link #tryClaim}. */
    void release() {
        claimed.set(false);
    }

    /** The snapshot taken when the task's input ended, or null while it runs. */
    TaskSnapshot finalSnapshot() {
        return finalSnapshot;
    }

    /**
     * Asks a source task to emit {@code barrier}; returns false if its input has already ended (its
     * final snapshot then stands in). Any thread.
     */
    boolean offerBarrier(ControlEvent.Barrier barrier) {
        synchronized (finishLock) {
            if (finished) {
                return false;
            }
            triggers.add(barrier);
            return true;
        }
    }

    /** Checkpoint {@code id} is durable; operators hear it on the task's thread. Any thread. */
    void checkpointComplete(long id) {
        completed.add(id);
    }

    /**
     * Makes this source task subtask {@code subtask} of {@code alignment}: it skips reads while its
     * output watermark is too far ahead of its siblings'. Before the task starts.
     */
    void alignWith(SourceAlignment alignment, int subtask) {
        if (!isSource() || !hasOutputs()) {
            throw new IllegalStateException(name + ": only a source task with outputs aligns");
        }
        this.sourceAlignment = alignment;
        this.alignedSubtask = subtask;
    }

    /** Does a bounded amount of work; returns true if anything moved. */
    boolean doWork() throws Exception {
        switch (state) {
            case CREATED:
                open();
                state = State.RUNNING;
                return true;
            case RUNNING:
                notifyCompleted();
                if (drainWriters()) {
                    return true;
                }
                if (anyPending()) {
                    return false;
                }
                reportCost(); // the last batch's output is all out: its cost is known
                boolean progress = timeService.fireDue();
                progress |= source != null ? pollSource() : pollInput();
                flushWriters();
                if (!anyPending()) {
                    reportCost();
                }
                return progress;
            case DRAINING:
                notifyCompleted();
                boolean moved = drainWriters();
                if (!anyPending()) {
                    state = awaitingCommit() ? State.AWAITING_COMMIT : State.DONE;
                    return true;
                }
                return moved;
            case AWAITING_COMMIT:
                notifyCompleted();
                if (!awaitingCommit()) {
                    state = State.DONE;
                    return true;
                }
                return false;
            default:
                return false;
        }
    }

    private void open() throws Exception {
        if (restore != TaskRestore.NONE) {
            FaultPoints.reach(FaultPoint.RESTORE_STARTED);
        }
        for (int i = 0; i < operators.size(); i++) {
            OperatorContext context = contexts.get(i);
            TaskRestore.OperatorRestore restored =
                    i < restore.operators().size() ? restore.operators().get(i) : null;
            if (restored != null) {
                operators.get(i).restoreOperatorState(restored.operatorStates());
            }
            operators.get(i).open(context);
            // Keyed state after open: states the function declared there are decoded straight
            // into place; any declared later wait, encoded, for their declaration.
            KeyedStateBackend keyed = context.keyedState();
            if (restored != null && keyed != null) {
                // A checkpoint restored from memory (local recovery) offers its in-memory copy
                // first; a backend that cannot use it is restored from the files instead.
                boolean local = restored.copy() != null && keyed.restoreLocal(restored.copy());
                if (!local) {
                    if (restored.copy() != null && restored.keyed().isEmpty()) {
                        throw new IllegalStateException(
                                name
                                        + ": the keyed state backend could not restore the"
                                        + " in-memory checkpoint and it has no files to restore"
                                        + " from; use a checkpoint directory");
                    }
                    for (KeyedSection section : restored.keyed()) {
                        keyed.restore(section, restored.firstKeyGroup(), restored.lastKeyGroup());
                    }
                }
            }
            if (keyed != null) {
                keyed.restoreFinished();
            }
            operators.get(i).afterStateRestored();
        }
        if (source != null) {
            source.open(restore.splits());
        }
    }

    private void notifyCompleted() throws Exception {
        Long id;
        while ((id = completed.poll()) != null) {
            for (StreamOperator operator : operators) {
                operator.notifyCheckpointComplete(id);
            }
            notifiedThrough = Math.max(notifiedThrough, id);
        }
    }

    /**
     * The newest checkpoint whose completion the task's operators have heard (sinks committed its
     * output), -1 if none; read by a stop-with-savepoint on another thread.
     */
    long notifiedThrough() {
        return notifiedThrough;
    }

    private boolean pollSource() throws Exception {
        ControlEvent.Barrier barrier = triggers.poll();
        if (barrier != null) {
            snapshotAndForward(barrier, 0);
            return true;
        }
        long start = nanoClock.getAsLong(); // the job's clock: a simulation stays deterministic
        SourceAlignment aligned = sourceAlignment;
        if (aligned != null) {
            aligned.publish(alignedSubtask, outputWatermark(), lastPollRead, start);
            if (!aligned.mayRead(alignedSubtask, start)) {
                alignmentPaused.begin(start);
                source.paused(); // held back is not idle: no idleness timeout meanwhile
                for (StreamOperator operator : operators) {
                    operator.sourcePaused();
                }
                return false; // ahead of a sibling: its turn (the worker helps other tasks)
            }
            alignmentPaused.end(start);
        }
        boolean progress = source.poll(sourceOutput, Math.min(pollSize, pacedRecords()));
        lastPollRead = progress;
        adaptPollSize(nanoClock.getAsLong() - start);
        FaultPoints.reach(FaultPoint.SOURCE_AFTER_POLL);
        if (source.ended()) {
            endOfInput();
            return true;
        }
        return progress;
    }

    /**
     * The watermark this source task's outputs got last: the least over its writers, leaving out
     * idle ones; {@link Output#IDLE} if all are idle, {@link Long#MIN_VALUE} before any.
     */
    private long outputWatermark() {
        long least = Long.MAX_VALUE;
        boolean idle = false;
        for (RecordWriter writer : writers) {
            long last = writer.lastWatermark();
            if (last == Output.IDLE) {
                idle = true;
            } else {
                least = Math.min(least, last);
            }
        }
        return least == Long.MAX_VALUE && idle ? Output.IDLE : least;
    }

    /**
     * The most records a poll should read so that each channel after this task gets about one batch
     * of the size its consumer's pace allows (SpscChannel.batchRecords): a slow consumer then gets
     * few records per poll, and a barrier does not queue behind a poll's worth of them.
     */
    private int pacedRecords() {
        int paced = Integer.MAX_VALUE;
        for (RecordWriter writer : writers) {
            paced = Math.min(paced, writer.pacedRecords());
        }
        return paced;
    }

    private void adaptPollSize(long nanos) {
        if (nanos > SLOW_POLL_NANOS) {
            pollSize = Math.max(1, pollSize >> 1);
        } else if (nanos < QUICK_POLL_NANOS && pollSize < batchSize) {
            pollSize = Math.min(batchSize, pollSize << 1);
        }
    }

    private boolean pollInput() throws Exception {
        Object item = inputs.pollNext();
        if (item == null) {
            return false;
        }
        if (item instanceof ControlEvent) {
            onEvent(item);
            return true;
        }
        // A batch: timed on the job's clock, so the producer can size what it sends by this
        // consumer's pace (SpscChannel.batchRecords)
        long start = nanoClock.getAsLong();
        int records;
        if (item instanceof KeyedBatch batch) {
            KeyedInput head = keyedHead;
            if (head == null) {
                throw new IllegalStateException(name + ": keyed batch for a non-keyed operator");
            }
            records = batch.pairs().length >> 1;
            keyedRecordsIn += records;
            head.processBatch(batch.pairs(), batch.timestamps(), time);
            if (batch.timestamps() != null) {
                inputs.recycleColumn(batch.timestamps()); // processBatch keeps no reference
            }
        } else if (item instanceof Object[] batch) {
            Output head = this.head;
            for (Object record : batch) {
                head.collect(record);
            }
            records = batch.length;
        } else if (item instanceof TimedBatch batch) {
            Output head = this.head;
            RecordTime time = this.time;
            Object[] timed = batch.records();
            long[] timestamps = batch.timestamps();
            for (int i = 0; i < timed.length; i++) {
                time.timestamp = timestamps[i];
                head.collect(timed[i]);
            }
            inputs.recycleColumn(timestamps);
            records = timed.length;
        } else {
            throw new IllegalStateException(name + ": unexpected item on channel: " + item);
        }
        // Reported once the batch's output has left too (reportCost), so a consumer held up by a
        // slow step after it counts as slow as well.
        costStart = start;
        costRecords = records;
        costChannel = inputs.lastChannel();
        return true;
    }

    /** Tells the channel of the last batch taken how long it took, if not told yet. */
    private void reportCost() {
        if (costRecords > 0) {
            inputs.reportCost(costChannel, nanoClock.getAsLong() - costStart, costRecords);
            costRecords = 0;
        }
    }

    /** A watermark, barrier or end of input from the channel {@link InputGate#lastChannel}. */
    private void onEvent(Object item) throws Exception {
        if (item instanceof ControlEvent.Watermark mark) {
            long next = watermarks.onWatermark(inputs.lastChannel(), mark.timestamp());
            if (next == watermark && next != Long.MIN_VALUE) {
                head.emitWatermark(next); // was idle, active again: tells the consumers
            } else {
                advanceWatermark(next);
            }
        } else if (item instanceof ControlEvent.Barrier barrier) {
            onBarrier(barrier);
        } else if (item instanceof ControlEvent.EndOfInput) {
            int channel = inputs.lastChannel();
            inputs.endLastChannel();
            if (alignment.onEnd(channel) == BarrierAlignment.Step.ALIGNED) {
                completeAlignment();
            }
            if (inputs.allEnded()) {
                endOfInput();
            } else {
                advanceWatermark(watermarks.onEnd(channel));
            }
        } else {
            throw new IllegalStateException(name + ": unexpected item on channel: " + item);
        }
    }

    /** Alignment of Barrier(n) over the input channels ({@link BarrierAlignment}). */
    private void onBarrier(ControlEvent.Barrier barrier) throws Exception {
        BarrierAlignment.Step step =
                alignment.onBarrier(
                        inputs.lastChannel(), barrier.checkpointId(), System.nanoTime());
        if (step == BarrierAlignment.Step.ALIGNED) {
            completeAlignment();
        }
    }

    private void completeAlignment() throws Exception {
        long alignmentNanos = System.nanoTime() - alignment.startNanos();
        ControlEvent.Barrier barrier = new ControlEvent.Barrier(alignment.checkpointId(), false);
        alignment.reset();
        FaultPoints.reach(FaultPoint.BARRIER_ALIGNED);
        snapshotAndForward(barrier, alignmentNanos);
    }

    /**
     * Passes a new watermark ({@link Long#MIN_VALUE}: none) through the chain, where operators fire
     * the event-time timers it makes due, and on to the writers.
     */
    private void advanceWatermark(long newWatermark) {
        if (newWatermark == Output.IDLE) {
            long flushed = watermarks.takeFlushed();
            if (flushed > watermark) {
                watermark = flushed;
                head.emitWatermark(flushed);
            }
            head.emitWatermark(Output.IDLE); // every open input is idle, so is this task's output
        } else if (newWatermark > watermark) {
            watermark = newWatermark;
            head.emitWatermark(newWatermark);
        }
    }

    private void snapshotAndForward(ControlEvent.Barrier barrier, long alignmentNanos)
            throws Exception {
        long start = System.nanoTime();
        TaskSnapshot snapshot = snapshot(barrier.checkpointId());
        long syncNanos = System.nanoTime() - start;
        for (RecordWriter writer : writers) {
            writer.broadcastEvent(barrier);
        }
        coordinator.snapshotTaken(
                barrier.checkpointId(), this, snapshot, alignmentNanos, syncNanos);
    }

    private TaskSnapshot snapshot(long checkpointId) throws Exception {
        List<OperatorSnapshot> states = new ArrayList<>(operators.size());
        for (int i = 0; i < operators.size(); i++) {
            OperatorContext context = contexts.get(i);
            KeyedStateBackend keyed = context.keyedState();
            states.add(
                    new OperatorSnapshot(
                            context.operatorName(),
                            context.subtaskIndex(),
                            context.parallelism(),
                            operators.get(i).snapshotOperatorState(checkpointId),
                            keyed == null ? null : keyed.snapshot(),
                            keyed == null ? null : context.stateBackendId()));
        }
        return new TaskSnapshot(
                name, sourceName, source == null ? Map.of() : source.snapshot(), states);
    }

    private void endOfInput() throws Exception {
        if (coordinator == null) {
            endOfEventTime();
            finishOperators();
        } else {
            synchronized (finishLock) {
                ControlEvent.Barrier barrier;
                while ((barrier = triggers.poll()) != null) {
                    snapshotAndForward(barrier, 0);
                }
                endOfEventTime();
                finishOperators();
                finalSnapshot = snapshot(coordinator.reserveCheckpointId());
                finished = true;
            }
        }
        for (RecordWriter writer : writers) {
            writer.broadcastEvent(ControlEvent.EndOfInput.INSTANCE);
        }
        if (sourceAlignment != null) {
            sourceAlignment.publish(alignedSubtask, Long.MAX_VALUE, false, nanoClock.getAsLong());
        }
        if (coordinator != null) {
            coordinator.taskFinished(this);
        }
        state = State.DRAINING;
    }

    /** The input ended: event time reaches its end, so every event-time timer fires. */
    private void endOfEventTime() {
        time.timestamp = RecordTime.NONE;
        if (source != null) {
            if (watermark < Long.MAX_VALUE) {
                watermark = Long.MAX_VALUE;
                sourceOutput.emitWatermark(Long.MAX_VALUE);
            }
        } else {
            advanceWatermark(Long.MAX_VALUE);
        }
    }

    private boolean awaitingCommit() {
        for (StreamOperator operator : operators) {
            if (operator.awaitsCommit()) {
                return true;
            }
        }
        return false;
    }

    private void finishOperators() throws Exception {
        for (StreamOperator operator : operators) {
            operator.finish();
        }
    }

    private boolean drainWriters() {
        int sent = 0;
        for (RecordWriter writer : writers) {
            sent += writer.drain();
        }
        return sent > 0;
    }

    private boolean anyPending() {
        for (RecordWriter writer : writers) {
            if (writer.hasPending()) {
                return true;
            }
        }
        return false;
    }

    private void flushWriters() {
        for (RecordWriter writer : writers) {
            writer.flush();
        }
    }

    /** Closes operators and readers; called once after the task's worker has stopped. */
    /**
     * Closes sources and operators. With {@code failed} and local recovery on, keyed state hands
     * its arrays to the next attempt of this subtask, which restores into them instead of
     * allocating as much again while the failed attempt's garbage is still on the heap.
     */
    void close(boolean failed) throws Exception {
        Exception first = null;
        if (source != null) {
            try {
                source.close();
            } catch (Exception e) {
                first = e;
            }
        }
        for (OperatorContext context : contexts) {
            if (context != null && context.keyedState() != null) {
                // With local recovery the next attempt reuses the memory of this one's state;
                // otherwise it is released now, so a restart's restore has it.
                boolean keep = failed && localState != null;
                context.keyedState().close(keep);
                if (keep) {
                    localState.putPrevious(context, context.keyedState());
                }
            }
        }
        for (StreamOperator operator : operators) {
            try {
                operator.close();
            } catch (Exception e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    /**
     * Accounts one step that ran from {@code startNanos} to {@code endNanos} (the worker's clock):
     * busy if it moved something while the output had room, backpressured from the first step that
     * left output waiting for a full channel until the step that cleared it.
     */
    /**
     * A worker begins a step of this task at {@code startNanos}: until {@link #timeStep} the step
     * in progress counts as busy, so a long step (a slow function over a whole batch) shows while
     * it runs instead of all at once when it ends. Per step, not per record.
     */
    void beginStep(long startNanos) {
        STEP_SINCE.setOpaque(this, startNanos);
    }

    void timeStep(boolean moved, long startNanos, long endNanos) {
        STEP_SINCE.setOpaque(this, 0L);
        if (anyPending()) {
            backpressured.begin(startNanos);
        } else {
            if (backpressured.isOpen()) {
                backpressured.end(endNanos);
            } else if (moved) {
                busyNanos += endNanos - startNanos;
            }
        }
    }

    /** Records the head operator received from keyed batches (metrics; racy read). */
    long keyedRecordsIn() {
        return keyedRecordsIn;
    }

    /** Time in steps that moved something, the step in progress included (metrics; racy read). */
    long busyNanos() {
        long since = (long) STEP_SINCE.getOpaque(this);
        return busyNanos + (since == 0 ? 0 : Math.max(0, System.nanoTime() - since));
    }

    /** Time this source task skipped reads for watermark alignment (metrics; racy read). */
    long alignmentPausedNanos() {
        return alignmentPaused.total(nanoClock.getAsLong());
    }

    /** Time the output waited for room downstream, the wait in progress included (racy read). */
    long backpressuredNanos() {
        return backpressured.total(System.nanoTime());
    }

    /** True if {@code operator} is fed by this task's keyed batches (metrics). */
    boolean isKeyedHead(StreamOperator operator) {
        return keyedHead != null && keyedHead == operator;
    }

    /** The name of the source step of a source task (metrics). */
    String sourceName() {
        return sourceName;
    }

    /** The source of a source task, else null (metrics: its lag). */
    SourceDriver sourceDriver() {
        return source;
    }

    @Override
    public String toString() {
        return name + "[" + state + "]";
    }
}
