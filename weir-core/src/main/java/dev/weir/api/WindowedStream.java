package dev.weir.api;

import dev.weir.api.codec.Codec;
import dev.weir.api.codec.Codecs;
import dev.weir.api.function.AggregateFunction;
import dev.weir.api.function.Collector;
import dev.weir.api.function.ProcessWindowFunction;
import dev.weir.api.function.ReduceFunction;
import dev.weir.api.time.TimeDomain;
import dev.weir.api.window.WindowAssigner;
import java.time.Duration;
import java.util.Objects;

/**
 * A keyed stream cut into windows ({@link KeyedStream#window}); a window function turns each window
 * of each key into results.
 *
 * <pre>{@code
 * pipeline.source("clicks", source)
 *         .assignTimestampsAndWatermarks(
 *                 WatermarkStrategy.<Click>forBoundedOutOfOrderness(Duration.ofSeconds(5))
 *                         .withTimestampAssigner((click, previous) -> click.timeMillis()))
 *         .keyBy(Click::page)
 *         .window(WindowAssigner.tumbling(Duration.ofMinutes(1)))
 *         .aggregate("clicks-per-minute", new Count<>(), Codecs.LONG,
 *                 (page, context, counts, out) ->
 *                         out.collect(page + "," + context.window().start() + "," + counts.iterator().next()))
 *         .sink("counts", FileSink.to(directory));
 * }</pre>
 *
 * <h2>Results and time</h2>
 *
 * In event time a window fires once the watermark passes its end, with the window's end - 1 as the
 * results' timestamp. Records later than that are dropped, or sent to {@link #sideOutputLateData},
 * unless {@link #allowedLateness} keeps the window open longer: each record it admits fires the
 * window again with all its records so far (an updated result that replaces the earlier one).
 * Window contents and timers are keyed state: checkpoints save them, a restore brings them back and
 * a rescaled job moves them with their keys, so with an exactly-once sink each window's result is
 * committed once.
 *
 * @param <K> key type
 * @param <T> record type
 */
public final class WindowedStream<K, T> {
    private final KeyedStream<K, T> input;
    private final WindowAssigner assigner;
    private final long allowedLatenessMillis;
    private final OutputTag<T> lateTag;

    WindowedStream(
            KeyedStream<K, T> input,
            WindowAssigner assigner,
            long allowedLatenessMillis,
            OutputTag<T> lateTag) {
        this.input = input;
        this.assigner = Objects.requireNonNull(assigner, "assigner");
        this.allowedLatenessMillis = allowedLatenessMillis;
        this.lateTag = lateTag;
    }

    /**
     * Keeps each event-time window for {@code lateness} after it fired: a record arriving in that
     * time fires it again with an updated result. Default zero.
     *
     * @param lateness how long after its end (by the watermark) a window still takes records; not
     *     negative
     * @return a windowed stream with this lateness; this one is unchanged
     * @throws IllegalArgumentException if {@code lateness} is negative, or positive for
     *     processing-time windows
     */
    public WindowedStream<K, T> allowedLateness(Duration lateness) {
        long millis = Objects.requireNonNull(lateness, "lateness").toMillis();
        if (millis < 0) {
            throw new IllegalArgumentException("allowedLateness must not be negative");
        }
        if (millis > 0 && assigner.timeDomain() != TimeDomain.EVENT_TIME) {
            throw new IllegalArgumentException(
                    "allowedLateness applies to event-time windows; "
                            + assigner
                            + " has no late records");
        }
        return new WindowedStream<>(input, assigner, millis, lateTag);
    }

    /**
     * Sends records too late for all their windows to the side output {@code tag} (read it with
     * {@link DataStream#sideOutput} on the stream a window function returns) instead of dropping
     * them.
     *
     * @param tag the side output that gets the late records
     * @return a windowed stream with this side output; this one is unchanged
     */
    public WindowedStream<K, T> sideOutputLateData(OutputTag<T> tag) {
        return new WindowedStream<>(
                input, assigner, allowedLatenessMillis, Objects.requireNonNull(tag, "tag"));
    }

    /**
     * Reduces each window's records to one, incrementally; state uses {@link Codecs#auto()}.
     *
     * @param name the step's name, unique in the pipeline
     * @param function combines two records of the same key and window into one
     * @return the stream of each window's reduced record
     * @throws IllegalArgumentException if {@code name} is not allowed or already used
     */
    public DataStream<T> reduce(String name, ReduceFunction<T> function) {
        return reduce(name, function, Codecs.auto());
    }

    /**
     * Reduces each window's records to one, incrementally, storing it with {@code codec}.
     *
     * @param name the step's name, unique in the pipeline
     * @param function combines two records of the same key and window into one
     * @param codec encodes the reduced record for checkpoints
     * @return the stream of each window's reduced record
     * @throws IllegalArgumentException if {@code name} is not allowed or already used
     */
    public DataStream<T> reduce(String name, ReduceFunction<T> function, Codec<T> codec) {
        return reduce(name, function, codec, (key, context, values, out) -> emitAll(values, out));
    }

    /**
     * Reduces each window's records to one, incrementally, and hands it to {@code window} with the
     * key and the window when the window fires.
     *
     * @param <R> the type of the records {@code window} emits
     * @param name the step's name, unique in the pipeline
     * @param function combines two records of the same key and window into one
     * @param codec encodes the reduced record for checkpoints
     * @param window gets the reduced record (as its only value) when the window fires
     * @return the stream of the records {@code window} emits
     * @throws IllegalArgumentException if {@code name} is not allowed or already used
     */
    public <R> DataStream<R> reduce(
            String name,
            ReduceFunction<T> function,
            Codec<T> codec,
            ProcessWindowFunction<K, T, R> window) {
        Objects.requireNonNull(function, "function");
        return aggregate(name, new Reducing<>(function), codec, window);
    }

    /**
     * Aggregates each window's records incrementally; the accumulator is stored with {@code codec}.
     *
     * @param <A> the type of the accumulator
     * @param <V> the type of the result
     * @param name the step's name, unique in the pipeline
     * @param function creates, updates and reads the accumulator of each key and window
     * @param codec encodes the accumulator for checkpoints
     * @return the stream of each window's result
     * @throws IllegalArgumentException if {@code name} is not allowed or already used
     */
    public <A, V> DataStream<V> aggregate(
            String name, AggregateFunction<T, A, V> function, Codec<A> codec) {
        return aggregate(
                name, function, codec, (key, context, values, out) -> emitAll(values, out));
    }

    /**
     * Aggregates each window's records incrementally and hands the result to {@code window} with
     * the key and the window when the window fires.
     *
     * @param <A> the type of the accumulator
     * @param <V> the type of the aggregate's result
     * @param <R> the type of the records {@code window} emits
     * @param name the step's name, unique in the pipeline
     * @param function creates, updates and reads the accumulator of each key and window
     * @param codec encodes the accumulator for checkpoints
     * @param window gets the aggregate's result (as its only value) when the window fires
     * @return the stream of the records {@code window} emits
     * @throws IllegalArgumentException if {@code name} is not allowed or already used
     */
    @SuppressWarnings("unchecked")
    public <A, V, R> DataStream<R> aggregate(
            String name,
            AggregateFunction<T, A, V> function,
            Codec<A> codec,
            ProcessWindowFunction<K, V, R> window) {
        Objects.requireNonNull(function, "function");
        Objects.requireNonNull(codec, "codec");
        return build(
                name,
                new WindowProcess.Contents(
                        (AggregateFunction<Object, Object, Object>)
                                (AggregateFunction<?, ?, ?>) function,
                        (Codec<Object>) codec),
                window);
    }

    /**
     * Keeps each window's records and hands them all to {@code window} when it fires; records are
     * stored with {@link Codecs#auto()}. Prefer {@link #aggregate} where a result can be computed
     * incrementally: it keeps one value per window instead of every record.
     *
     * @param <R> the type of the records {@code window} emits
     * @param name the step's name, unique in the pipeline
     * @param window gets all records of the window when it fires
     * @return the stream of the records {@code window} emits
     * @throws IllegalArgumentException if {@code name} is not allowed or already used
     */
    public <R> DataStream<R> process(String name, ProcessWindowFunction<K, T, R> window) {
        return process(name, window, Codecs.auto());
    }

    /**
     * Like {@link #process(String, ProcessWindowFunction)}, storing records with {@code codec}.
     *
     * @param <R> the type of the records {@code window} emits
     * @param name the step's name, unique in the pipeline
     * @param window gets all records of the window when it fires
     * @param codec encodes each kept record for checkpoints
     * @return the stream of the records {@code window} emits
     * @throws IllegalArgumentException if {@code name} is not allowed or already used
     */
    @SuppressWarnings("unchecked")
    public <R> DataStream<R> process(
            String name, ProcessWindowFunction<K, T, R> window, Codec<T> codec) {
        Objects.requireNonNull(codec, "codec");
        return build(name, new WindowProcess.Contents(null, (Codec<Object>) codec), window);
    }

    @SuppressWarnings("unchecked")
    private <R> DataStream<R> build(
            String name, WindowProcess.Contents contents, ProcessWindowFunction<K, ?, R> window) {
        Objects.requireNonNull(window, "window");
        WindowProcess.Spec spec =
                new WindowProcess.Spec(
                        name,
                        assigner,
                        allowedLatenessMillis,
                        (OutputTag<Object>) (OutputTag<?>) lateTag,
                        contents,
                        (ProcessWindowFunction<Object, Object, Object>)
                                (ProcessWindowFunction<?, ?, ?>) window);
        return input.process(name, () -> new WindowProcess<K, T, R>(spec));
    }

    private static <V> void emitAll(Iterable<V> values, Collector<V> out) {
        for (V value : values) {
            out.collect(value);
        }
    }

    /** A reduce function as an aggregate whose accumulator is the reduced record. */
    private static final class Reducing<T> implements AggregateFunction<T, T, T> {
        private static final long serialVersionUID = 1L;
        private final ReduceFunction<T> function;

        Reducing(ReduceFunction<T> function) {
            this.function = function;
        }

        @Override
        public T createAccumulator() {
            return null;
        }

        @Override
        public T add(T value, T accumulator) throws Exception {
            return accumulator == null ? value : function.reduce(accumulator, value);
        }

        @Override
        public T getResult(T accumulator) {
            return accumulator;
        }

        @Override
        public T merge(T a, T b) throws Exception {
            return function.reduce(a, b);
        }
    }
}
