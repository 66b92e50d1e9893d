package dev.weir.flink;

import dev.weir.api.OutputTag;
import dev.weir.api.function.FunctionFactory;
import dev.weir.api.state.KeyedStateStore;
import dev.weir.api.time.TimeDomain;
import dev.weir.api.time.TimerService;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.api.common.TaskInfo;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

/**
 * A Weir {@link dev.weir.api.function.KeyedProcessFunction} as a Flink keyed process function: one
 * instance per subtask from the step's factory, state over Flink keyed state ({@link FlinkStates}),
 * timers over Flink's timer service (so they are checkpointed and redistributed with their keys by
 * Flink), side outputs as Flink side outputs with the same tag id.
 *
 * <p>Its watermark is checkpointed, as Weir's keyed operator's is (design 008): Flink's own
 * watermark starts again from its minimum after a restore, so a record replayed after the restore
 * that was late before (its window fired, was committed and dropped before the checkpoint) would
 * open the window again and commit it twice. The function keeps the highest watermark it saw in
 * union operator state, restores the smallest of the old subtasks it takes over (old subtask {@code
 * j} goes to {@code j mod p}, as on Weir), and its context never reports a lower one.
 */
final class FlinkProcessFunction extends KeyedProcessFunction<WeirKey, Object, Object>
        implements CheckpointedFunction {
    private static final long serialVersionUID = 1L;
    private final Shared<
                    FunctionFactory<? extends dev.weir.api.function.KeyedProcessFunction<?, ?, ?>>>
            factory;
    private final String stepName;
    private final Shared<AtomicInteger> attempts;
    private transient dev.weir.api.function.KeyedProcessFunction<Object, Object, Object> function;
    private transient Scope scope;
    private transient FlinkStates states;
    private transient ListState<long[]> watermarkState;

    /** The restored watermark: the context never reports a lower one. */
    private transient long restoredWatermark = Long.MIN_VALUE;

    /** The highest watermark seen (not the end of input's), for the next checkpoint. */
    private transient long seenWatermark = Long.MIN_VALUE;

    FlinkProcessFunction(
            Shared<FunctionFactory<? extends dev.weir.api.function.KeyedProcessFunction<?, ?, ?>>>
                    factory,
            String stepName,
            Shared<AtomicInteger> attempts) {
        this.factory = factory;
        this.stepName = stepName;
        this.attempts = attempts;
    }

    /**
     * Records the attempt number of a starting task in {@code attempts} (local runs only), from
     * which the job handle reports its restarts.
     */
    static void recordAttempt(Shared<AtomicInteger> attempts, TaskInfo task) {
        AtomicInteger seen = attempts.get();
        if (seen != null) {
            seen.accumulateAndGet(task.getAttemptNumber(), Math::max);
        }
    }

    @Override
    @SuppressWarnings("unchecked")
    public void open(OpenContext openContext) throws Exception {
        try {
            function =
                    (dev.weir.api.function.KeyedProcessFunction<Object, Object, Object>)
                            factory.get().create();
            scope = new Scope();
            scope.floor = restoredWatermark;
            recordAttempt(attempts, getRuntimeContext().getTaskInfo());
            states = new FlinkStates(getRuntimeContext());
            int subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
            int parallelism = getRuntimeContext().getTaskInfo().getNumberOfParallelSubtasks();
            function.open(
                    new dev.weir.api.function.KeyedProcessFunction.OpenContext() {
                        @Override
                        public KeyedStateStore states() {
                            return states;
                        }

                        @Override
                        public String stepName() {
                            return stepName;
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
        } catch (Exception e) {
            FlinkFailures.throwReplacement(e);
            throw e;
        }
    }

    /**
     * Calls the function's {@code onEndOfInput} for {@code operator}'s subtask: {@code forEachKey}
     * visits the keys that have state in any declared state (collected first, since the visit may
     * change state), each with the state scoped to it.
     */
    void endOfInput(EndOfInputOperator operator) throws Exception {
        try {
            function.onEndOfInput(
                    new dev.weir.api.function.KeyedProcessFunction.EndOfInputContext<>() {
                        @Override
                        public void forEachKey(
                                dev.weir.api.function.KeyedProcessFunction.KeyAction<Object> action)
                                throws Exception {
                            java.util.Set<WeirKey> keys = new java.util.LinkedHashSet<>();
                            for (String name : states.names()) {
                                try (java.util.stream.Stream<WeirKey> stored =
                                        operator.<WeirKey>getKeyedStateBackend()
                                                .getKeys(name, VoidNamespace.INSTANCE)) {
                                    stored.forEach(keys::add);
                                }
                            }
                            for (WeirKey key : keys) {
                                operator.setCurrentKey(key);
                                action.accept(key.key());
                            }
                        }

                        @Override
                        public <X> void output(OutputTag<X> tag, X value) {
                            operator.emit(tag, value);
                        }
                    },
                    operator::emit);
        } catch (Exception e) {
            FlinkFailures.throwReplacement(e);
            throw e;
        }
    }

    @Override
    public void initializeState(FunctionInitializationContext context) throws Exception {
        watermarkState =
                context.getOperatorStateStore()
                        .getUnionListState(
                                new ListStateDescriptor<>(
                                        "weir.watermark",
                                        PrimitiveArrayTypeInfo.LONG_PRIMITIVE_ARRAY_TYPE_INFO));
        restoredWatermark = Long.MIN_VALUE;
        if (context.isRestored()) {
            int subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
            int parallelism = getRuntimeContext().getTaskInfo().getNumberOfParallelSubtasks();
            long smallest = Long.MAX_VALUE;
            for (long[] saved : watermarkState.get()) {
                if ((int) saved[0] % parallelism == subtask) {
                    smallest = Math.min(smallest, saved[1]);
                }
            }
            if (smallest != Long.MAX_VALUE) {
                restoredWatermark = smallest;
            }
        }
        seenWatermark = restoredWatermark;
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) throws Exception {
        int subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
        watermarkState.update(java.util.List.of(new long[] {subtask, seenWatermark}));
    }

    /** Notes the watermark of the current call (a primitive store per record). */
    private void see(long watermark) {
        if (watermark > seenWatermark && watermark != Long.MAX_VALUE) {
            seenWatermark = watermark;
        }
    }

    @Override
    public void processElement(Object value, Context context, Collector<Object> out)
            throws Exception {
        try {
            see(context.timerService().currentWatermark());
            scope.context = context;
            scope.timerContext = null;
            scope.out = out;
            function.process(value, scope, scope);
        } catch (Exception e) {
            FlinkFailures.throwReplacement(e);
            throw e;
        }
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext context, Collector<Object> out)
            throws Exception {
        try {
            see(context.timerService().currentWatermark());
            scope.context = context;
            scope.timerContext = context;
            scope.out = out;
            function.onTimer(timestamp, scope, scope);
        } catch (Exception e) {
            FlinkFailures.throwReplacement(e);
            throw e;
        }
    }

    /**
     * The Weir contexts and collector over the Flink ones of the current call (one object per
     * subtask, reset per call: nothing is allocated per record).
     */
    private static final class Scope
            implements dev.weir.api.function.KeyedProcessFunction.OnTimerContext<Object, Object>,
                    TimerService,
                    dev.weir.api.function.Collector<Object> {
        Collector<Object> out;
        KeyedProcessFunction<WeirKey, Object, Object>.Context context;
        KeyedProcessFunction<WeirKey, Object, Object>.OnTimerContext timerContext;

        /** The restored watermark, below which the reported watermark never goes. */
        long floor = Long.MIN_VALUE;

        @Override
        public void collect(Object record) {
            out.collect(record);
        }

        @Override
        public Object key() {
            return context.getCurrentKey().key();
        }

        @Override
        public boolean hasTimestamp() {
            return context.timestamp() != null;
        }

        @Override
        public long timestamp() {
            Long timestamp = context.timestamp();
            return timestamp == null ? Long.MIN_VALUE : timestamp;
        }

        @Override
        public TimerService timers() {
            return this;
        }

        @Override
        public <X> void output(OutputTag<X> tag, X value) {
            context.output(Translator.flinkTag(tag), value);
        }

        @Override
        public TimeDomain timeDomain() {
            return timerContext.timeDomain() == org.apache.flink.streaming.api.TimeDomain.EVENT_TIME
                    ? TimeDomain.EVENT_TIME
                    : TimeDomain.PROCESSING_TIME;
        }

        @Override
        public long currentProcessingTime() {
            return context.timerService().currentProcessingTime();
        }

        @Override
        public long currentWatermark() {
            return Math.max(floor, context.timerService().currentWatermark());
        }

        @Override
        public void registerEventTimeTimer(long time) {
            context.timerService().registerEventTimeTimer(time);
        }

        @Override
        public void registerProcessingTimeTimer(long time) {
            context.timerService().registerProcessingTimeTimer(time);
        }

        @Override
        public void deleteEventTimeTimer(long time) {
            context.timerService().deleteEventTimeTimer(time);
        }

        @Override
        public void deleteProcessingTimeTimer(long time) {
            context.timerService().deleteProcessingTimeTimer(time);
        }
    }
}
