package dev.weir.api;

import dev.weir.api.function.FilterFunction;
import dev.weir.api.function.FlatMapFunction;
import dev.weir.api.function.KeySelector;
import dev.weir.api.function.MapFunction;
import dev.weir.api.sink.IdempotentSink;
import dev.weir.api.sink.Sink;
import dev.weir.api.sink.TwoPhaseCommitSink;
import dev.weir.api.time.WatermarkStrategy;
import dev.weir.internal.graph.Node;
import dev.weir.internal.graph.Node.OperatorNode;
import dev.weir.internal.graph.Node.Partitioning;
import dev.weir.internal.operators.FilterOperator;
import dev.weir.internal.operators.FlatMapOperator;
import dev.weir.internal.operators.IdempotentSinkOperator;
import dev.weir.internal.operators.MapOperator;
import dev.weir.internal.operators.SinkOperator;
import dev.weir.internal.operators.TimestampsOperator;
import dev.weir.internal.operators.TwoPhaseCommitSinkOperator;
import dev.weir.internal.runtime.OperatorFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A stream of records of type {@code T} in a {@link Pipeline}; each method adds a step and returns
 * the stream it produces.
 *
 * <p>Steps without a key run chained to their input (no queue between them) when their parallelism
 * matches. {@link #parallelism} and {@link #name} change the step that produced this stream.
 *
 * @param <T> record type
 */
public class DataStream<T> {
    final Pipeline pipeline;
    final Node node;

    DataStream(Pipeline pipeline, Node node) {
        this.pipeline = pipeline;
        this.node = node;
    }

    /** Sets the number of subtasks of the step that produced this stream. */
    public DataStream<T> parallelism(int parallelism) {
        if (node instanceof Node.UnionNode || node instanceof Node.SideOutputNode) {
            throw new IllegalArgumentException(
                    "a union or side output has no parallelism of its own; set it on the step"
                            + " after it");
        }
        if (parallelism < 1) {
            throw new IllegalArgumentException("parallelism must be >= 1, got " + parallelism);
        }
        node.parallelism(parallelism);
        return this;
    }

    /** Renames the step that produced this stream (names must be unique in the pipeline). */
    public DataStream<T> name(String name) {
        node.name(pipeline.claimName(name));
        return this;
    }

    /** Applies {@code function} to each record. */
    @SuppressWarnings("unchecked")
    public <R> DataStream<R> map(MapFunction<? super T, ? extends R> function) {
        Objects.requireNonNull(function, "function");
        MapFunction<Object, Object> f = (MapFunction<Object, Object>) function;
        return forward("map", () -> new MapOperator(f));
    }

    /** Keeps the records for which {@code function} returns true. */
    @SuppressWarnings("unchecked")
    public DataStream<T> filter(FilterFunction<? super T> function) {
        Objects.requireNonNull(function, "function");
        FilterFunction<Object> f = (FilterFunction<Object>) function;
        return forward("filter", () -> new FilterOperator(f));
    }

    /** Replaces each record by the zero or more records {@code function} emits. */
    @SuppressWarnings("unchecked")
    public <R> DataStream<R> flatMap(FlatMapFunction<? super T, R> function) {
        Objects.requireNonNull(function, "function");
        FlatMapFunction<Object, Object> f = (FlatMapFunction<Object, Object>) function;
        return forward("flatMap", () -> new FlatMapOperator(f));
    }

    /**
     * Partitions the stream by key: records with equal keys go to the same subtask of the next
     * step, and that step can keep state per key.
     */
    public <K> KeyedStream<K, T> keyBy(KeySelector<? super T, K> keySelector) {
        Objects.requireNonNull(keySelector, "keySelector");
        return new KeyedStream<>(pipeline, node, keySelector);
    }

    /**
     * Gives the records event time: {@code strategy}'s timestamp assigner sets each record's
     * timestamp, and its watermark generator says how far event time has advanced (emitted on its
     * events and every {@link Pipeline#autoWatermarkInterval}). Steps after this one see the
     * timestamps ({@code Context.timestamp()} in a keyed process function) and fire event-time
     * timers by the watermark; the edges of the pipeline then carry a timestamp column. Watermarks
     * from before this step are replaced by its own.
     */
    @SuppressWarnings("unchecked")
    public DataStream<T> assignTimestampsAndWatermarks(WatermarkStrategy<T> strategy) {
        Objects.requireNonNull(strategy, "strategy");
        WatermarkStrategy<Object> s = (WatermarkStrategy<Object>) (WatermarkStrategy<?>) strategy;
        OperatorNode next =
                new OperatorNode(
                                pipeline.nextId(),
                                pipeline.autoName("timestamps"),
                                node,
                                Partitioning.FORWARD,
                                null,
                                () -> new TimestampsOperator(s),
                                null)
                        .assignsTime(true);
        inheritParallelism(next);
        pipeline.add(next);
        return new DataStream<>(pipeline, next);
    }

    /**
     * The side output {@code tag} of the step that produced this stream (a keyed process function
     * emits into it with {@code context.output(tag, value)}).
     */
    public <X> DataStream<X> sideOutput(OutputTag<X> tag) {
        Objects.requireNonNull(tag, "tag");
        if (!(node instanceof OperatorNode operator) || operator.sink() != null) {
            throw new IllegalArgumentException(
                    "step '"
                            + node.name()
                            + "' has no side outputs; take them from the stream a process step"
                            + " returns");
        }
        Node.SideOutputNode side =
                new Node.SideOutputNode(
                        pipeline.nextId(), pipeline.autoName("side-" + tag.id()), node, tag.id());
        pipeline.add(side);
        return new DataStream<>(pipeline, side);
    }

    /** Merges this stream with {@code others} of the same type. */
    @SafeVarargs
    public final DataStream<T> union(DataStream<T>... others) {
        List<Node> inputs = new ArrayList<>();
        inputs.add(node);
        for (DataStream<T> other : others) {
            if (other.pipeline != pipeline) {
                throw new IllegalArgumentException("cannot union streams of different pipelines");
            }
            inputs.add(other.node);
        }
        Node.UnionNode union =
                new Node.UnionNode(pipeline.nextId(), pipeline.autoName("union"), inputs);
        pipeline.add(union);
        return new DataStream<>(pipeline, union);
    }

    /**
     * Writes every record to {@code sink}, which is called {@code name}; runs at this stream's
     * parallelism unless changed on the returned handle.
     */
    @SuppressWarnings("unchecked")
    public SinkHandle sink(String name, Sink<? super T> sink) {
        Objects.requireNonNull(sink, "sink");
        Sink<Object> s = (Sink<Object>) sink;
        OperatorFactory factory;
        if (s instanceof TwoPhaseCommitSink<?, ?> twoPhase) {
            TwoPhaseCommitSink<Object, Object> t = (TwoPhaseCommitSink<Object, Object>) twoPhase;
            factory = () -> new TwoPhaseCommitSinkOperator(t);
        } else if (s instanceof IdempotentSink<?, ?> idempotent) {
            IdempotentSink<Object, Object> i = (IdempotentSink<Object, Object>) idempotent;
            factory = () -> new IdempotentSinkOperator(i);
        } else {
            factory = () -> new SinkOperator(s);
        }
        OperatorNode sinkNode =
                new OperatorNode(
                        pipeline.nextId(),
                        pipeline.claimName(name),
                        node,
                        Partitioning.FORWARD,
                        null,
                        factory,
                        s);
        inheritParallelism(sinkNode);
        pipeline.add(sinkNode);
        return new SinkHandle(sinkNode);
    }

    private <R> DataStream<R> forward(String kind, OperatorFactory factory) {
        OperatorNode next =
                new OperatorNode(
                        pipeline.nextId(),
                        pipeline.autoName(kind),
                        node,
                        Partitioning.FORWARD,
                        null,
                        factory,
                        null);
        inheritParallelism(next);
        pipeline.add(next);
        return new DataStream<>(pipeline, next);
    }

    /** Forward steps default to their input's parallelism, so chains form without extra calls. */
    void inheritParallelism(OperatorNode next) {
        if (node instanceof Node.SideOutputNode side) {
            next.parallelism(side.producer().parallelism());
        } else if (!(node instanceof Node.UnionNode)) {
            next.parallelism(node.parallelism());
        }
    }

    /** Changes a sink after it was added. */
    public static final class SinkHandle {
        private final OperatorNode node;

        SinkHandle(OperatorNode node) {
            this.node = node;
        }

        /** Sets the number of sink subtasks. */
        public SinkHandle parallelism(int parallelism) {
            if (parallelism < 1) {
                throw new IllegalArgumentException("parallelism must be >= 1, got " + parallelism);
            }
            node.parallelism(parallelism);
            return this;
        }
    }
}
