package dev.weir.internal.operators;

import dev.weir.api.OutputTag;
import dev.weir.api.codec.Codecs;
import dev.weir.api.function.Collector;
import dev.weir.api.function.FunctionFactory;
import dev.weir.api.function.KeySelector;
import dev.weir.api.function.KeyedProcessFunction;
import dev.weir.api.state.KeyedStateBackend;
import dev.weir.api.state.KeyedStateStore;
import dev.weir.api.state.ListState;
import dev.weir.api.time.TimeDomain;
import dev.weir.api.time.TimerService;
import dev.weir.internal.state.HeapKeyedStateBackend;
import dev.weir.internal.state.LongListState;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Runs a {@link KeyedProcessFunction}: takes each record's key (from the keyed batch, or extracts
 * it), scopes the keyed state to it and calls the function with a context that reads the record's
 * time, registers timers and emits side outputs.
 *
 * <p>Timers are keyed state: each key's pending timer times are kept in two internal list states
 * (event and processing time), so they are checkpointed, restored and redistributed by key group
 * like any state, and {@link #afterStateRestored} rebuilds the in-memory queues from them. The
 * queues ({@link TimerQueue}) group timers by time, so registering allocates nothing per timer,
 * finding a timer that exists already is one lookup in its time's small set of keys, and deleting
 * one removes it at once.
 *
 * <p>The operator's watermark is its non-keyed state: restored, it never goes back below what the
 * checkpoint saw (subtasks added by rescaling up get no old state and start from the inputs'
 * watermarks).
 */
public final class KeyedProcessOperator implements StreamOperator, KeyedInput {
    /** Internal state holding each key's event-time timers. */
    static final String EVENT_TIMERS = "__weir.timers.event";

    /** Internal state holding each key's processing-time timers. */
    static final String PROCESSING_TIMERS = "__weir.timers.processing";

    private final KeySelector<Object, Object> keySelector;
    private final FunctionFactory<KeyedProcessFunction<Object, Object, Object>> factory;
    private KeyedProcessFunction<Object, Object, Object> function;
    private String name;
    private Collector<Object> output;
    private Output rawOutput;
    private KeyedStateBackend state;
    private RecordTime time;
    private ProcessingTimeService timeService;
    private Map<String, Output> sideOutputs;
    private long watermark = Long.MIN_VALUE;

    /** True once the end of input ran here, in this run or (restored) before. */
    private boolean ended;

    /** True if restored from a checkpoint taken after the end of input ran (the final one). */
    private boolean endedBefore;

    /** The largest watermark before the end of input raised it to MAX_VALUE. */
    private long watermarkBeforeEnd = Long.MIN_VALUE;

    private final TimerQueue eventTimers = new TimerQueue();
    private final TimerQueue processingTimers = new TimerQueue();
    private ListState<Long> eventTimerState;
    private ListState<Long> processingTimerState;

    /** The earliest processing time a callback is scheduled for, or MAX_VALUE. */
    private long scheduledProcessing = Long.MAX_VALUE;

    private final ContextImpl context = new ContextImpl();

    public KeyedProcessOperator(
            KeySelector<Object, Object> keySelector,
            FunctionFactory<KeyedProcessFunction<Object, Object, Object>> factory) {
        this.keySelector = keySelector;
        this.factory = factory;
    }

    @Override
    public void open(OperatorContext operatorContext) throws Exception {
        this.name = operatorContext.operatorName();
        this.rawOutput = operatorContext.output();
        this.output = new NullCheckingOutput("process '" + name + "'", rawOutput);
        this.state = operatorContext.keyedState();
        this.time = operatorContext.time();
        this.timeService = operatorContext.timeService();
        this.sideOutputs = operatorContext.sideOutputs();
        this.eventTimerState = timerState(EVENT_TIMERS);
        this.processingTimerState = timerState(PROCESSING_TIMERS);
        this.function = factory.create();
        KeyedStateStore states = state;
        int subtask = operatorContext.subtaskIndex();
        int parallelism = operatorContext.parallelism();
        function.open(
                new KeyedProcessFunction.OpenContext() {
                    @Override
                    public KeyedStateStore states() {
                        return states;
                    }

                    @Override
                    public String stepName() {
                        return name;
                    }

                    @Override
                    public int subtaskIndex() {
                        return subtask;
                    }

                    @Override
                    public int parallelism() {
                        return parallelism;
                    }
                });
    }

    /** Rebuilds the timer queues from the restored timer state. */
    @Override
    public void afterStateRestored() throws Exception {
        state.forEachKey(
                key -> {
                    for (long at : eventTimerState.get()) {
                        eventTimers.add(at, key);
                    }
                    if (!endedBefore) { // else dropped at the end of input, before the restore
                        for (long at : processingTimerState.get()) {
                            processingTimers.add(at, key);
                        }
                    }
                });
        scheduleProcessing();
    }

    @Override
    public void processElement(Object record) {
        Object key;
        try {
            key = keySelector.getKey(record);
        } catch (Exception e) {
            throw new UserCodeException("process '" + name + "'", e);
        }
        processElement(record, key);
    }

    /**
     * One record with its key. {@link #processBatch} repeats this body in its loop on purpose: the
     * loop must not call a per-record method C2 may compile on its own first (design 009, rule 5).
     */
    private void processElement(Object record, Object key) {
        try {
            // The context reads the key from the backend: no per-record reference store into a
            // long-lived object (docs/design/009-hot-path.md).
            state.setCurrentKey(key);
            function.process(record, context, output);
        } catch (UserCodeException e) {
            throw e;
        } catch (Exception e) {
            throw new UserCodeException("process '" + name + "'", e);
        }
    }

    /** Slots of a batch (two per record: record, key) announced to the backend at a time. */
    private static final int PREFETCH_RUN = 128;

    @Override
    public void processBatch(Object[] pairs, long[] timestamps, RecordTime time) {
        KeyedStateBackend state = this.state;
        KeyedProcessFunction<Object, Object, Object> function = this.function;
        ContextImpl context = this.context;
        Collector<Object> output = this.output;
        try {
            // In runs of PREFETCH_RUN records, each announced to the backend first: with many keys
            // their lookups miss the caches, and announced together the misses overlap.
            int n = pairs.length;
            if (timestamps == null) {
                for (int run = 0; run < n; run += PREFETCH_RUN) {
                    int end = Math.min(n, run + PREFETCH_RUN);
                    state.prefetch(pairs, run + 1, end, 2);
                    for (int i = run; i < end; i += 2) {
                        state.setCurrentKey(pairs[i + 1]);
                        function.process(pairs[i], context, output);
                    }
                }
            } else {
                for (int run = 0; run < n; run += PREFETCH_RUN) {
                    int end = Math.min(n, run + PREFETCH_RUN);
                    state.prefetch(pairs, run + 1, end, 2);
                    for (int i = run, j = run >> 1; i < end; i += 2, j++) {
                        time.timestamp = timestamps[j];
                        state.setCurrentKey(pairs[i + 1]);
                        function.process(pairs[i], context, output);
                    }
                }
            }
        } catch (UserCodeException e) {
            throw e;
        } catch (Exception e) {
            throw new UserCodeException("process '" + name + "'", e);
        }
    }

    /**
     * The watermark reached here, 8 bytes: a restore starts from it instead of {@link
     * Long#MIN_VALUE}, so records replayed after a restore are late exactly when they were late
     * before (a window that fired and was dropped before the checkpoint is not opened again). Not
     * the end of input's MAX_VALUE: a job resumed on more input goes on from the last real one.
     */
    @Override
    public byte[] snapshotOperatorState(long checkpointId) {
        long saved = watermark == Long.MAX_VALUE ? watermarkBeforeEnd : watermark;
        return ByteBuffer.allocate(Long.BYTES + 1)
                .putLong(saved)
                .put((byte) (ended ? 1 : 0))
                .array();
    }

    /**
     * Starts from the smallest watermark of the old subtasks (it gets them all, whatever the
     * parallelism; after a keyBy they hold the same one), and as ended if every one of them had run
     * its end of input (a restore of the final checkpoint).
     */
    @Override
    public void restoreOperatorState(List<byte[]> states) {
        long restored = Long.MAX_VALUE;
        boolean allEnded = true;
        for (byte[] state : states) {
            ByteBuffer buffer = ByteBuffer.wrap(state);
            restored = Math.min(restored, buffer.getLong());
            // 8 bytes: written before the flag existed.
            allEnded &= buffer.remaining() > 0 && buffer.get() == 1;
        }
        if (!states.isEmpty()) {
            watermark = restored;
            watermarkBeforeEnd = restored;
            endedBefore = allEnded;
            ended = allEnded;
        }
    }

    @Override
    public boolean processWatermark(long newWatermark) {
        if (newWatermark == Output.IDLE) {
            return true;
        }
        // After a restore the inputs start again from below the restored watermark: never go back.
        watermark = Math.max(watermark, newWatermark);
        if (newWatermark != Long.MAX_VALUE) {
            watermarkBeforeEnd = watermark;
        }
        try {
            fire(eventTimers, watermark, TimeDomain.EVENT_TIME, eventTimerState);
        } catch (UserCodeException e) {
            throw e;
        } catch (Exception e) {
            throw new UserCodeException("process '" + name + "' onTimer", e);
        }
        return true;
    }

    /**
     * Fires the timers of {@code timers} due at {@code upTo}, in time order; the keys of one time
     * in the order their timers were registered.
     */
    private void fire(TimerQueue timers, long upTo, TimeDomain domain, ListState<Long> stored)
            throws Exception {
        TimerQueue.KeySet due;
        while ((due = timers.pollDue(upTo)) != null) {
            long at = due.time;
            Object[] keys = due.keys;
            for (int i = 0; i < due.end; i++) {
                Object key = keys[i];
                if (key == null) {
                    continue; // deleted
                }
                state.setCurrentKey(key);
                removeStored(stored, at);
                context.domain = domain;
                time.timestamp = domain == TimeDomain.EVENT_TIME ? at : RecordTime.NONE;
                try {
                    function.onTimer(at, context, output);
                } finally {
                    context.domain = null;
                    time.timestamp = RecordTime.NONE;
                }
            }
            timers.recycle(due);
        }
    }

    /**
     * The number of timers pending in {@code domain}, over all keys: registered, not yet fired and
     * not deleted. For tests; call it on the task's thread or after the job stopped.
     *
     * @param domain which timers
     * @return the count
     */
    public int pendingTimers(TimeDomain domain) {
        return domain == TimeDomain.EVENT_TIME ? eventTimers.size() : processingTimers.size();
    }

    private void onProcessingTime(long scheduledFor) throws Exception {
        scheduledProcessing = Long.MAX_VALUE;
        if (endedBefore) {
            return; // dropped at the end of input, which ran before the restore
        }
        fire(processingTimers, timeService.now(), TimeDomain.PROCESSING_TIME, processingTimerState);
        scheduleProcessing();
    }

    /** Asks the task to call back at the earliest pending processing-time timer. */
    private void scheduleProcessing() {
        long next = processingTimers.earliest();
        if (next < scheduledProcessing) {
            scheduledProcessing = next;
            timeService.schedule(next, this::onProcessingTime);
        }
    }

    @Override
    public void finish() throws Exception {
        ended = true;
        if (endedBefore) {
            // Restored from a checkpoint taken after the end of input: what onEndOfInput emitted
            // is in the sink's committed output already; emitting it again would duplicate it.
            return;
        }
        KeyedProcessFunction.EndOfInputContext<Object, Object> end =
                new KeyedProcessFunction.EndOfInputContext<>() {
                    @Override
                    public void forEachKey(KeyedProcessFunction.KeyAction<Object> action)
                            throws Exception {
                        state.forEachKey(action::accept);
                    }

                    @Override
                    public <X> void output(OutputTag<X> tag, X value) {
                        context.output(tag, value);
                    }
                };
        try {
            function.onEndOfInput(end, output);
        } catch (UserCodeException e) {
            throw e;
        } catch (Exception e) {
            throw new UserCodeException("process '" + name + "' onEndOfInput", e);
        }
    }

    /** The context handed to every call; one instance, updated before each. */
    private final class ContextImpl
            implements KeyedProcessFunction.OnTimerContext<Object, Object>, TimerService {
        TimeDomain domain;

        @Override
        public Object key() {
            return state.currentKey();
        }

        @Override
        public boolean hasTimestamp() {
            return time.timestamp != RecordTime.NONE;
        }

        @Override
        public long timestamp() {
            return time.timestamp;
        }

        @Override
        public TimerService timers() {
            return this;
        }

        @Override
        public <X> void output(OutputTag<X> tag, X value) {
            if (tag == null) {
                throw new dev.weir.api.UnrecoverableException(
                        "process '"
                                + name
                                + "' emitted to a null side output; pass the OutputTag the"
                                + " pipeline reads with DataStream.sideOutput(tag)");
            }
            if (value == null) {
                throw NullCheckingOutput.nullRecord(
                        "process '" + name + "'", "emitted null to side output '" + tag.id() + "'");
            }
            Output side = sideOutputs.get(tag.id());
            if (side != null) {
                side.collect(value);
            }
        }

        @Override
        public TimeDomain timeDomain() {
            return domain;
        }

        @Override
        public long currentProcessingTime() {
            return timeService.now();
        }

        @Override
        public long currentWatermark() {
            return watermark;
        }

        @Override
        public void registerEventTimeTimer(long at) {
            Object k = keyForTimer();
            if (eventTimers.add(at, k)) {
                eventTimerState.add(at);
            }
        }

        @Override
        public void registerProcessingTimeTimer(long at) {
            Object k = keyForTimer();
            if (processingTimers.add(at, k)) {
                processingTimerState.add(at);
                scheduleProcessing();
            }
        }

        @Override
        public void deleteEventTimeTimer(long at) {
            if (eventTimers.delete(at, keyForTimer())) {
                removeStored(eventTimerState, at);
            }
        }

        @Override
        public void deleteProcessingTimeTimer(long at) {
            if (processingTimers.delete(at, keyForTimer())) {
                removeStored(processingTimerState, at);
            }
        }

        private Object keyForTimer() {
            Object key = state.currentKey();
            if (key == null) {
                throw new IllegalStateException(
                        "process '"
                                + name
                                + "': timers belong to a key; use them in process or onTimer");
            }
            return key;
        }
    }

    /** A timer state: one that removes in place where the backend offers it (the heap's). */
    private ListState<Long> timerState(String stateName) {
        return state instanceof HeapKeyedStateBackend heap
                ? heap.longListState(stateName, Codecs.LONG)
                : state.listState(stateName, Codecs.LONG);
    }

    /**
     * Removes {@code at} from the current key's stored timers: in place where the backend can; else
     * found by its index (no boxing, no {@code Long.equals}), and the key's only timer clears the
     * list without a copy.
     */
    private static void removeStored(ListState<Long> stored, long at) {
        if (stored instanceof LongListState inPlace) {
            inPlace.removeFirst(at);
            return;
        }
        List<Long> times = stored.get();
        int n = times.size();
        int index = -1;
        for (int i = 0; i < n; i++) {
            if (times.get(i) == at) {
                index = i;
                break;
            }
        }
        if (index < 0) {
            return;
        }
        if (n == 1) {
            stored.clear();
            return;
        }
        // Array copies: a view would make the state's copy walk it element by element.
        List<Long> remaining = new ArrayList<>(times);
        remaining.remove(index);
        stored.update(remaining);
    }
}
