package dev.weir.api;

import dev.weir.api.codec.Codec;
import dev.weir.api.codec.Codecs;
import dev.weir.api.function.Collector;
import dev.weir.api.function.FunctionFactory;
import dev.weir.api.function.KeySelector;
import dev.weir.api.function.KeyedProcessFunction;
import dev.weir.api.function.ReduceFunction;
import dev.weir.api.function.ValueProcessFunction;
import dev.weir.api.state.ValueState;
import dev.weir.api.window.WindowAssigner;
import java.util.List;
import java.util.Objects;

/**
 * A stream partitioned by key; the next step sees each key on one subtask and can keep per-key
 * state that checkpoints save and restore.
 *
 * @param <K> key type
 * @param <T> record type
 */
public final class KeyedStream<K, T> {
    private final Pipeline pipeline;
    private final StepBuilder input;
    private final KeySelector<? super T, K> keySelector;

    KeyedStream(Pipeline pipeline, StepBuilder input, KeySelector<? super T, K> keySelector) {
        this.pipeline = pipeline;
        this.input = input;
        this.keySelector = keySelector;
    }

    /**
     * Processes each record with a function made by {@code factory} once per subtask; the function
     * declares its state in {@code open}. {@code name} identifies the state in checkpoints and must
     * be unique in the pipeline.
     *
     * @param <R> the type of the records the function emits
     * @param name the step's name, unique in the pipeline
     * @param factory makes a new function for each subtask each time it starts or restarts
     * @return the stream of the records the function emits; side outputs are read from it
     * @throws IllegalArgumentException if {@code name} is not allowed or already used
     */
    public <R> DataStream<R> process(
            String name, FunctionFactory<? extends KeyedProcessFunction<K, ? super T, R>> factory) {
        Objects.requireNonNull(factory, "factory");
        StepBuilder step =
                pipeline.add(
                        pipeline.claimName(name),
                        StepBuilder.Kind.KEYED_PROCESS,
                        List.of(input),
                        factory,
                        keySelector,
                        null);
        return new DataStream<>(pipeline, step);
    }

    /**
     * Processes each record with one {@link ValueState} per key, stored with {@code stateCodec}:
     * {@code (key, value, state, out) -> ...}.
     *
     * @param <S> the type of the per-key state
     * @param <R> the type of the records the function emits
     * @param name the step's name, unique in the pipeline
     * @param stateCodec encodes the state for checkpoints
     * @param function called once per record with that record's key and state
     * @return the stream of the records the function emits
     * @throws IllegalArgumentException if {@code name} is not allowed or already used
     */
    public <S, R> DataStream<R> process(
            String name, Codec<S> stateCodec, ValueProcessFunction<K, ? super T, S, R> function) {
        Objects.requireNonNull(stateCodec, "stateCodec");
        Objects.requireNonNull(function, "function");
        return process(name, () -> new ValueProcess<K, T, S, R>(stateCodec, function));
    }

    /**
     * Keeps a running reduction per key and emits the new value after each record; the state uses
     * {@link Codecs#auto()}.
     *
     * @param name the step's name, unique in the pipeline
     * @param function combines the reduction so far with the next record; the first record of a key
     *     is its start
     * @return the stream of running reductions, one per record
     * @throws IllegalArgumentException if {@code name} is not allowed or already used
     */
    public DataStream<T> reduce(String name, ReduceFunction<T> function) {
        return reduce(name, function, Codecs.auto());
    }

    /**
     * Like {@link #reduce(String, ReduceFunction)} with an explicit state codec.
     *
     * @param name the step's name, unique in the pipeline
     * @param function combines the reduction so far with the next record; the first record of a key
     *     is its start
     * @param codec encodes the reduction for checkpoints
     * @return the stream of running reductions, one per record
     * @throws IllegalArgumentException if {@code name} is not allowed or already used
     */
    public DataStream<T> reduce(String name, ReduceFunction<T> function, Codec<T> codec) {
        Objects.requireNonNull(function, "function");
        return process(
                name,
                codec,
                (K key, T value, ValueState<T> state, Collector<T> out) -> {
                    T accumulated = state.value();
                    T next = accumulated == null ? value : function.reduce(accumulated, value);
                    state.update(next);
                    out.collect(next);
                });
    }

    /**
     * Cuts each key's records into the windows {@code assigner} gives them (tumbling, sliding or
     * session windows, in event or processing time); a window function on the result says what each
     * window of each key produces.
     *
     * @param assigner gives each record its windows, such as {@code WindowAssigner.tumbling(...)}
     * @return the windowed stream; choose what each window produces on it
     */
    public WindowedStream<K, T> window(WindowAssigner assigner) {
        return new WindowedStream<>(this, assigner, 0, null);
    }

    /**
     * Joins this stream (the left side) with {@code other} (the right side) on their keys and event
     * time; set the interval with {@link IntervalJoin#between}. Both must have event time.
     *
     * @param <U> the type of the right side's records
     * @param other the right side; keyed by the same key type, in the same pipeline
     * @return the join, to be given its interval and function
     * @throws IllegalArgumentException if {@code other} belongs to another pipeline
     */
    public <U> IntervalJoin<K, T, U> intervalJoin(KeyedStream<K, U> other) {
        Objects.requireNonNull(other, "other");
        if (other.pipeline != pipeline) {
            throw new IllegalArgumentException(
                    "intervalJoin: the other stream belongs to another pipeline");
        }
        return new IntervalJoin<>(
                pipeline, input, keySelector, other.input, other.keySelector, 0, 0);
    }

    /**
     * Joins this stream (the left side) with {@code other} (the right side) per key and window:
     * when a window fires, each of its left records meets each of its right records.
     *
     * @param <U> the type of the right side's records
     * @param other the right side; keyed by the same key type, in the same pipeline
     * @param assigner gives each record of both sides its windows
     * @return the join, to be given its function
     * @throws IllegalArgumentException if {@code other} belongs to another pipeline
     */
    public <U> WindowJoin<K, T, U> windowJoin(KeyedStream<K, U> other, WindowAssigner assigner) {
        Objects.requireNonNull(other, "other");
        if (other.pipeline != pipeline) {
            throw new IllegalArgumentException(
                    "windowJoin: the other stream belongs to another pipeline");
        }
        return new WindowJoin<>(
                pipeline, input, keySelector, other.input, other.keySelector, assigner);
    }

    /** Adapts the one-state short form to the full {@link KeyedProcessFunction}. */
    private static final class ValueProcess<K, T, S, R> implements KeyedProcessFunction<K, T, R> {
        private final Codec<S> codec;
        private final ValueProcessFunction<K, ? super T, S, R> function;
        private transient ValueState<S> state;

        ValueProcess(Codec<S> codec, ValueProcessFunction<K, ? super T, S, R> function) {
            this.codec = codec;
            this.function = function;
        }

        @Override
        public void open(OpenContext context) {
            state = context.states().valueState("value", codec);
        }

        @Override
        public void process(T value, Context<K, R> context, Collector<R> out) throws Exception {
            function.process(context.key(), value, state, out);
        }
    }
}
