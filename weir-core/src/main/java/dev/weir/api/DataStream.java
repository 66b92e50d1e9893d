package dev.weir.api;

import dev.weir.api.function.FilterFunction;
import dev.weir.api.function.FlatMapFunction;
import dev.weir.api.function.KeySelector;
import dev.weir.api.function.MapFunction;
import dev.weir.api.sink.Sink;
import dev.weir.api.time.WatermarkStrategy;
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
    final StepBuilder step;

    DataStream(Pipeline pipeline, StepBuilder step) {
        this.pipeline = pipeline;
        this.step = step;
    }

    /**
     * Sets the number of subtasks of the step that produced this stream.
     *
     * @param parallelism subtasks, at least 1 and at most {@link Pipeline#maxParallelism}
     * @return this stream
     * @throws IllegalArgumentException if {@code parallelism} is below 1, or this stream is a union
     *     or side output
     */
    public DataStream<T> parallelism(int parallelism) {
        if (step.isVirtual()) {
            throw new IllegalArgumentException(
                    "a union or side output has no parallelism of its own; set it on the step"
                            + " after it");
        }
        if (parallelism < 1) {
            throw new IllegalArgumentException("parallelism must be >= 1, got " + parallelism);
        }
        step.parallelism = parallelism;
        return this;
    }

    /**
     * Renames the step that produced this stream (names must be unique in the pipeline).
     *
     * @param name the new name, unique in the pipeline; it keys the step's state in checkpoints
     * @return this stream
     * @throws IllegalArgumentException if {@code name} is not allowed or already used
     */
    public DataStream<T> name(String name) {
        step.name = pipeline.claimName(name);
        return this;
    }

    /**
     * Declares that the step that produced this stream may block its thread for long (a call to a
     * remote service, a throttle): its subtasks then run on threads of their own, so they never
     * hold up other steps or a checkpoint barrier behind them. Steps that only compute need not.
     *
     * @return this stream
     * @throws IllegalArgumentException if the step is a source, union or side output
     */
    public DataStream<T> blocking() {
        if (step.isVirtual() || step.kind == StepBuilder.Kind.SOURCE) {
            throw new IllegalArgumentException(
                    "only map, filter, flatMap and process steps can be marked blocking; a sink"
                            + " says so itself (Sink.isBlocking)");
        }
        step.blocking = true;
        return this;
    }

    /**
     * Applies {@code function} to each record.
     *
     * @param <R> the type of the results
     * @param function called once per record on the step's task thread
     * @return the stream of results, one per record
     */
    public <R> DataStream<R> map(MapFunction<? super T, ? extends R> function) {
        Objects.requireNonNull(function, "function");
        return forward("map", StepBuilder.Kind.MAP, function);
    }

    /**
     * Keeps the records for which {@code function} returns true.
     *
     * @param function called once per record on the step's task thread
     * @return the stream of the records kept
     */
    public DataStream<T> filter(FilterFunction<? super T> function) {
        Objects.requireNonNull(function, "function");
        return forward("filter", StepBuilder.Kind.FILTER, function);
    }

    /**
     * Replaces each record by the zero or more records {@code function} emits.
     *
     * @param <R> the type of the records emitted
     * @param function called once per record on the step's task thread
     * @return the stream of the records emitted
     */
    public <R> DataStream<R> flatMap(FlatMapFunction<? super T, R> function) {
        Objects.requireNonNull(function, "function");
        return forward("flatMap", StepBuilder.Kind.FLAT_MAP, function);
    }

    /**
     * Gives the records event time: {@code strategy}'s timestamp assigner sets each record's
     * timestamp, and its watermark generator says how far event time has advanced (emitted on its
     * events and every {@link Pipeline#autoWatermarkInterval}). Steps after this one see the
     * timestamps ({@code Context.timestamp()} in a keyed process function) and fire event-time
     * timers by the watermark; the edges of the pipeline then carry a timestamp column. Watermarks
     * from before this step are replaced by its own.
     *
     * @param strategy the timestamp assigner and watermark generator
     * @return the same records, with timestamps and this step's watermarks
     */
    public DataStream<T> assignTimestampsAndWatermarks(WatermarkStrategy<T> strategy) {
        Objects.requireNonNull(strategy, "strategy");
        return forward("timestamps", StepBuilder.Kind.TIMESTAMPS, strategy);
    }

    /**
     * Partitions the stream by key: records with equal keys go to the same subtask of the next
     * step, and that step can keep state per key.
     *
     * <p>Keep the keys of one class. A restored step refuses a key of a class its checkpoint held
     * none of, because that is what a changed key selector looks like (its state would be
     * orphaned): a selector that returns keys of several classes (a {@code Long} here, a {@code
     * String} there, or records of a sealed interface) cannot recover from a checkpoint taken
     * before its second class first appeared. Wrap such keys in one class (a record, or a string).
     *
     * @param <K> the type of the key; it needs a consistent {@code equals} and {@code hashCode}
     * @param keySelector extracts the key; must return the same key for the same record every time
     * @return the keyed stream, for a keyed step to follow
     */
    public <K> KeyedStream<K, T> keyBy(KeySelector<? super T, K> keySelector) {
        Objects.requireNonNull(keySelector, "keySelector");
        return new KeyedStream<>(pipeline, step, keySelector);
    }

    /**
     * The side output {@code tag} of the step that produced this stream (a keyed process function
     * emits into it with {@code context.output(tag, value)}).
     *
     * @param <X> the type of the side output's records
     * @param tag the side output to read
     * @return the stream of records the step emitted into {@code tag}
     * @throws IllegalArgumentException if the step is not a keyed process step
     */
    public <X> DataStream<X> sideOutput(OutputTag<X> tag) {
        Objects.requireNonNull(tag, "tag");
        if (step.kind != StepBuilder.Kind.KEYED_PROCESS) {
            throw new IllegalArgumentException(
                    "step '"
                            + step.name
                            + "' has no side outputs; take them from the stream a process step"
                            + " returns");
        }
        StepBuilder side =
                pipeline.add(
                        pipeline.autoName("side-" + tag.id()),
                        StepBuilder.Kind.SIDE_OUTPUT,
                        List.of(step),
                        null,
                        null,
                        tag);
        return new DataStream<>(pipeline, side);
    }

    /**
     * Merges this stream with {@code others} of the same type.
     *
     * @param others the streams to merge in; from the same pipeline
     * @return the merged stream; records of different inputs come in no set order
     * @throws IllegalArgumentException if a stream belongs to another pipeline
     */
    @SafeVarargs
    public final DataStream<T> union(DataStream<T>... others) {
        List<StepBuilder> inputs = new ArrayList<>();
        inputs.add(step);
        for (DataStream<T> other : others) {
            if (other.pipeline != pipeline) {
                throw new IllegalArgumentException("cannot union streams of different pipelines");
            }
            inputs.add(other.step);
        }
        StepBuilder union =
                pipeline.add(
                        pipeline.autoName("union"),
                        StepBuilder.Kind.UNION,
                        inputs,
                        null,
                        null,
                        null);
        return new DataStream<>(pipeline, union);
    }

    /**
     * Writes every record to {@code sink}, which is called {@code name}; runs at this stream's
     * parallelism unless changed on the returned handle.
     *
     * @param name the sink's name, unique in the pipeline; it keys the sink's state in checkpoints
     * @param sink the sink to write to
     * @return a handle to change the sink step
     * @throws IllegalArgumentException if {@code name} is not allowed or already used
     */
    public SinkHandle sink(String name, Sink<? super T> sink) {
        Objects.requireNonNull(sink, "sink");
        StepBuilder sinkStep =
                pipeline.add(
                        pipeline.claimName(name),
                        StepBuilder.Kind.SINK,
                        List.of(step),
                        sink,
                        null,
                        null);
        inheritParallelism(sinkStep);
        return new SinkHandle(sinkStep);
    }

    private <R> DataStream<R> forward(String kindName, StepBuilder.Kind kind, Object function) {
        StepBuilder next =
                pipeline.add(
                        pipeline.autoName(kindName), kind, List.of(step), function, null, null);
        inheritParallelism(next);
        return new DataStream<>(pipeline, next);
    }

    /** Forward steps default to their input's parallelism, so chains form without extra calls. */
    void inheritParallelism(StepBuilder next) {
        if (step.kind != StepBuilder.Kind.UNION) {
            next.parallelism = step.parallelismForNext();
        }
    }

    /** Changes a sink after it was added. */
    public static final class SinkHandle {
        private final StepBuilder step;

        SinkHandle(StepBuilder step) {
            this.step = step;
        }

        /**
         * Sets the number of sink subtasks.
         *
         * @param parallelism sink subtasks, at least 1 and at most {@link Pipeline#maxParallelism}
         * @return this handle
         * @throws IllegalArgumentException if {@code parallelism} is below 1
         */
        public SinkHandle parallelism(int parallelism) {
            if (parallelism < 1) {
                throw new IllegalArgumentException("parallelism must be >= 1, got " + parallelism);
            }
            step.parallelism = parallelism;
            return this;
        }
    }
}
