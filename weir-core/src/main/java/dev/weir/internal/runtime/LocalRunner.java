package dev.weir.internal.runtime;

import dev.weir.api.JobHandle;
import dev.weir.api.checkpoint.CheckpointingMode;
import dev.weir.api.function.FilterFunction;
import dev.weir.api.function.FlatMapFunction;
import dev.weir.api.function.FunctionFactory;
import dev.weir.api.function.KeySelector;
import dev.weir.api.function.KeyedProcessFunction;
import dev.weir.api.function.MapFunction;
import dev.weir.api.plan.PipelinePlan;
import dev.weir.api.plan.Runner;
import dev.weir.api.plan.Step;
import dev.weir.api.sink.IdempotentSink;
import dev.weir.api.sink.Sink;
import dev.weir.api.sink.TwoPhaseCommitSink;
import dev.weir.api.time.WatermarkStrategy;
import dev.weir.internal.checkpoint.CheckpointStorage;
import dev.weir.internal.checkpoint.CheckpointStore;
import dev.weir.internal.graph.Node;
import dev.weir.internal.graph.Node.OperatorNode;
import dev.weir.internal.graph.Node.Partitioning;
import dev.weir.internal.operators.FilterOperator;
import dev.weir.internal.operators.FlatMapOperator;
import dev.weir.internal.operators.IdempotentSinkOperator;
import dev.weir.internal.operators.KeyedProcessOperator;
import dev.weir.internal.operators.MapOperator;
import dev.weir.internal.operators.OperatorFactory;
import dev.weir.internal.operators.SinkOperator;
import dev.weir.internal.operators.TimestampsOperator;
import dev.weir.internal.operators.TwoPhaseCommitSinkOperator;
import java.util.ArrayList;
import java.util.List;

/**
 * Weir's own runner: translates a {@link PipelinePlan}'s steps into the runtime's operators and
 * runs them in this JVM ({@link LocalJob}). {@code Pipeline.start()} uses it.
 */
public final class LocalRunner implements Runner {
    /** The one instance. */
    public static final LocalRunner INSTANCE = new LocalRunner();

    private LocalRunner() {}

    @Override
    public String name() {
        return "local";
    }

    @Override
    public JobHandle start(PipelinePlan plan) {
        PipelinePlan.Settings settings = plan.settings();
        RuntimeConfig runtime =
                new RuntimeConfig(
                        plan.name(),
                        settings.parallelism(),
                        settings.maxParallelism(),
                        settings.batchSize(),
                        settings.channelCapacityBatches(),
                        settings.channelCapacityBytes(),
                        settings.workerThreads(),
                        settings.maxIdleParkNanos(),
                        settings.autoWatermarkMillis(),
                        settings.watermarkAlignmentMillis());
        List<Node> nodes = nodes(plan);
        boolean checkpointing = settings.checkpoints().mode() != CheckpointingMode.NONE;
        // Last: it locks the checkpoint directory, which the job releases when it ends.
        CheckpointStorage store =
                checkpointing
                        ? new CheckpointStore(
                                settings.checkpoints().directory(),
                                settings.checkpoints().retained())
                        : null;
        return LocalJob.start(
                nodes,
                new JobSettings(
                        runtime,
                        settings.checkpoints(),
                        store,
                        settings.restartStrategy(),
                        settings.listener(),
                        settings.fromSavepoint(),
                        settings.allowNonRestoredState(),
                        RuntimeClock.processingTime(settings.processingTimeClock()),
                        settings.seed(),
                        settings.localRecovery() && checkpointing ? new LocalStateCache() : null,
                        settings.stateBackend(),
                        false));
    }

    /** The runtime's nodes for the plan's steps, in the same order (ids are positions). */
    static List<Node> nodes(PipelinePlan plan) {
        List<Node> nodes = new ArrayList<>(plan.steps().size());
        for (Step step : plan.steps()) {
            Node node = node(step, nodes);
            if (step.parallelism() > 0) {
                node.parallelism(step.parallelism());
            }
            nodes.add(node);
        }
        return nodes;
    }

    @SuppressWarnings("unchecked")
    private static Node node(Step step, List<Node> nodes) {
        int id = step.id();
        String name = step.name();
        if (step instanceof Step.SourceStep source) {
            return new Node.SourceNode(id, name, source.source(), source.watermarks());
        }
        if (step instanceof Step.UnionStep union) {
            List<Node> inputs = new ArrayList<>();
            for (int input : union.inputs()) {
                inputs.add(nodes.get(input));
            }
            return new Node.UnionNode(id, name, inputs);
        }
        if (step instanceof Step.SideOutputStep side) {
            return new Node.SideOutputNode(id, name, nodes.get(side.input()), side.tag().id());
        }
        Node input = nodes.get(step.inputs().get(0));
        OperatorNode node;
        if (step instanceof Step.MapStep map) {
            MapFunction<Object, Object> f = (MapFunction<Object, Object>) map.function();
            node = forward(id, name, input, () -> new MapOperator(f));
        } else if (step instanceof Step.FilterStep filter) {
            FilterFunction<Object> f = (FilterFunction<Object>) filter.function();
            node = forward(id, name, input, () -> new FilterOperator(f));
        } else if (step instanceof Step.FlatMapStep flatMap) {
            FlatMapFunction<Object, Object> f =
                    (FlatMapFunction<Object, Object>) flatMap.function();
            node = forward(id, name, input, () -> new FlatMapOperator(f));
        } else if (step instanceof Step.TimestampsStep timestamps) {
            WatermarkStrategy<Object> s = (WatermarkStrategy<Object>) timestamps.strategy();
            node = forward(id, name, input, () -> new TimestampsOperator(s)).assignsTime(true);
        } else if (step instanceof Step.KeyedProcessStep process) {
            KeySelector<Object, Object> selector =
                    (KeySelector<Object, Object>) process.keySelector();
            FunctionFactory<KeyedProcessFunction<Object, Object, Object>> f =
                    (FunctionFactory<KeyedProcessFunction<Object, Object, Object>>)
                            (Object) process.factory();
            node =
                    new OperatorNode(
                            id,
                            name,
                            input,
                            Partitioning.KEYED,
                            selector,
                            () -> new KeyedProcessOperator(selector, f),
                            null);
        } else if (step instanceof Step.SinkStep sinkStep) {
            Sink<Object> sink = (Sink<Object>) sinkStep.sink();
            OperatorFactory factory;
            if (sink instanceof TwoPhaseCommitSink<?, ?> twoPhase) {
                TwoPhaseCommitSink<Object, Object> t =
                        (TwoPhaseCommitSink<Object, Object>) twoPhase;
                factory = () -> new TwoPhaseCommitSinkOperator(t);
            } else if (sink instanceof IdempotentSink<?, ?> idempotent) {
                IdempotentSink<Object, Object> i = (IdempotentSink<Object, Object>) idempotent;
                factory = () -> new IdempotentSinkOperator(i);
            } else {
                factory = () -> new SinkOperator(sink);
            }
            node = new OperatorNode(id, name, input, Partitioning.FORWARD, null, factory, sink);
        } else {
            throw new IllegalArgumentException("the local runtime cannot run step " + step);
        }
        return node.blocking(step.blocking());
    }

    private static OperatorNode forward(int id, String name, Node input, OperatorFactory factory) {
        return new OperatorNode(id, name, input, Partitioning.FORWARD, null, factory, null);
    }
}
