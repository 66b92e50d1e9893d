package dev.weir.api;

import dev.weir.api.codec.Codec;
import dev.weir.api.codec.Codecs;
import dev.weir.api.function.KeySelector;
import dev.weir.api.function.ProcessJoinFunction;
import java.time.Duration;
import java.util.Objects;

/**
 * An interval join of two keyed streams in event time ({@link KeyedStream#intervalJoin}): each left
 * record {@code l} meets each right record {@code r} of the same key with {@code l.time + lower <=
 * r.time <= l.time + upper}.
 *
 * <pre>{@code
 * clicks.keyBy(Click::user)
 *         .intervalJoin(orders.keyBy(Order::user))
 *         .between(Duration.ofMinutes(-5), Duration.ZERO) // orders up to 5 min after a click
 *         .process("clicks-to-orders", (click, order, context, out) -> out.collect(...));
 * }</pre>
 *
 * <h2>How it runs</h2>
 *
 * Both inputs are tagged and merged (a union, so the join task aligns checkpoint barriers over the
 * channels of both and its watermark is the minimum of both), keyed by their key selectors and
 * joined by a keyed process function: each side's records wait in keyed state (by timestamp) until
 * the watermark shows no record of the other side can still meet them, when an event-time timer
 * drops them. So the buffers are checkpointed, restored and rescaled like any keyed state. A record
 * at or behind the watermark when it arrives is not joined (it could miss partners already
 * dropped): it is dropped, or sent to a side output ({@link #sideOutputLeftLateData}, {@link
 * #sideOutputRightLateData}). Results carry the timestamp of the record whose arrival made the
 * pair.
 *
 * @param <K> key type
 * @param <L> left record type
 * @param <R> right record type
 */
public final class IntervalJoin<K, L, R> {
    private final Pipeline pipeline;
    private final StepBuilder left;
    private final KeySelector<? super L, K> leftKey;
    private final StepBuilder right;
    private final KeySelector<? super R, K> rightKey;
    private final long lowerMillis;
    private final long upperMillis;
    private final OutputTag<L> leftLate;
    private final OutputTag<R> rightLate;

    IntervalJoin(
            Pipeline pipeline,
            StepBuilder left,
            KeySelector<? super L, K> leftKey,
            StepBuilder right,
            KeySelector<? super R, K> rightKey,
            long lowerMillis,
            long upperMillis) {
        this(pipeline, left, leftKey, right, rightKey, lowerMillis, upperMillis, null, null);
    }

    private IntervalJoin(
            Pipeline pipeline,
            StepBuilder left,
            KeySelector<? super L, K> leftKey,
            StepBuilder right,
            KeySelector<? super R, K> rightKey,
            long lowerMillis,
            long upperMillis,
            OutputTag<L> leftLate,
            OutputTag<R> rightLate) {
        this.pipeline = pipeline;
        this.left = left;
        this.leftKey = leftKey;
        this.right = right;
        this.rightKey = rightKey;
        this.lowerMillis = lowerMillis;
        this.upperMillis = upperMillis;
        this.leftLate = leftLate;
        this.rightLate = rightLate;
    }

    /**
     * Joins a left record at time t with the right records in {@code [t + lower, t + upper]} (both
     * ends included; either may be negative).
     *
     * @param lower the earliest right time, relative to the left record's time
     * @param upper the latest right time, relative to the left record's time; not before {@code
     *     lower}
     * @return a join with this interval; this one is unchanged. Without a call the interval is
     *     {@code [0, 0]}: only equal times meet
     * @throws IllegalArgumentException if {@code lower} is after {@code upper}
     */
    public IntervalJoin<K, L, R> between(Duration lower, Duration upper) {
        long lo = Objects.requireNonNull(lower, "lower").toMillis();
        long up = Objects.requireNonNull(upper, "upper").toMillis();
        if (lo > up) {
            throw new IllegalArgumentException(
                    "interval join: lower bound " + lower + " is after upper bound " + upper);
        }
        return with(lo, up, leftLate, rightLate);
    }

    private IntervalJoin<K, L, R> with(
            long lower, long upper, OutputTag<L> lateLefts, OutputTag<R> lateRights) {
        return new IntervalJoin<>(
                pipeline, left, leftKey, right, rightKey, lower, upper, lateLefts, lateRights);
    }

    /**
     * Sends left records that arrive late (at or behind the join's watermark, so they are not
     * joined) to the side output {@code tag} of the join's result ({@link DataStream#sideOutput})
     * instead of dropping them.
     *
     * @param tag the side output for late left records
     * @return a join that does so; this one is unchanged
     */
    public IntervalJoin<K, L, R> sideOutputLeftLateData(OutputTag<L> tag) {
        return with(lowerMillis, upperMillis, Objects.requireNonNull(tag, "tag"), rightLate);
    }

    /**
     * Sends right records that arrive late (at or behind the join's watermark, so they are not
     * joined) to the side output {@code tag} of the join's result instead of dropping them.
     *
     * @param tag the side output for late right records
     * @return a join that does so; this one is unchanged
     */
    public IntervalJoin<K, L, R> sideOutputRightLateData(OutputTag<R> tag) {
        return with(lowerMillis, upperMillis, leftLate, Objects.requireNonNull(tag, "tag"));
    }

    /**
     * Joins with {@code function}; buffered records are stored with {@link Codecs#auto()}.
     *
     * @param <O> the type of the joined records
     * @param name the join step's name, unique in the pipeline; it keys the buffers in checkpoints
     * @param function called once per matching pair, on the join task's thread
     * @return the stream of the records {@code function} emits
     * @throws IllegalArgumentException if {@code name} is not allowed or already used
     */
    public <O> DataStream<O> process(String name, ProcessJoinFunction<L, R, O> function) {
        return process(name, function, Codecs.auto(), Codecs.auto());
    }

    /**
     * Joins with {@code function}, storing buffered records with the two codecs.
     *
     * @param <O> the type of the joined records
     * @param name the join step's name, unique in the pipeline; it keys the buffers in checkpoints
     * @param function called once per matching pair, on the join task's thread
     * @param leftCodec encodes buffered left records for checkpoints
     * @param rightCodec encodes buffered right records for checkpoints
     * @return the stream of the records {@code function} emits
     * @throws IllegalArgumentException if {@code name} is not allowed or already used
     */
    @SuppressWarnings("unchecked")
    public <O> DataStream<O> process(
            String name,
            ProcessJoinFunction<L, R, O> function,
            Codec<L> leftCodec,
            Codec<R> rightCodec) {
        Objects.requireNonNull(function, "function");
        Objects.requireNonNull(leftCodec, "leftCodec");
        Objects.requireNonNull(rightCodec, "rightCodec");
        DataStream<IntervalJoinProcess.Side> lefts =
                new DataStream<L>(pipeline, left).map(l -> new IntervalJoinProcess.Side(true, l));
        DataStream<IntervalJoinProcess.Side> rights =
                new DataStream<R>(pipeline, right).map(r -> new IntervalJoinProcess.Side(false, r));
        KeySelector<? super L, K> lk = leftKey;
        KeySelector<? super R, K> rk = rightKey;
        IntervalJoinProcess.Spec spec =
                new IntervalJoinProcess.Spec(
                        name,
                        lowerMillis,
                        upperMillis,
                        (Codec<Object>) leftCodec,
                        (Codec<Object>) rightCodec,
                        (ProcessJoinFunction<Object, Object, Object>)
                                (ProcessJoinFunction<?, ?, ?>) function,
                        (OutputTag<Object>) (OutputTag<?>) leftLate,
                        (OutputTag<Object>) (OutputTag<?>) rightLate);
        return lefts.union(rights)
                .keyBy(
                        (IntervalJoinProcess.Side side) ->
                                side.left()
                                        ? lk.getKey((L) side.value())
                                        : rk.getKey((R) side.value()))
                .process(name, () -> new IntervalJoinProcess<K, O>(spec));
    }
}
