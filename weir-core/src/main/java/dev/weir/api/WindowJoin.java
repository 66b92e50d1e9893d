package dev.weir.api;

import dev.weir.api.codec.Codec;
import dev.weir.api.codec.Codecs;
import dev.weir.api.function.KeySelector;
import dev.weir.api.function.WindowJoinFunction;
import dev.weir.api.window.WindowAssigner;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A windowed join of two keyed streams ({@link KeyedStream#windowJoin}): when a window of a key
 * fires, each of its left records meets each of its right records.
 *
 * <pre>{@code
 * bids.keyBy(Bid::auction)
 *         .windowJoin(auctions.keyBy(Auction::id), WindowAssigner.tumbling(Duration.ofSeconds(10)))
 *         .apply("bids-with-auctions", (id, window, bid, auction, out) -> out.collect(...));
 * }</pre>
 *
 * Both inputs are tagged and merged by a union (the join task aligns barriers over both and its
 * watermark is the minimum of both), keyed by their own key selectors and cut into windows by a
 * {@link WindowedStream#process} step, whose window contents are keyed state: checkpointed,
 * restored and rescaled with their keys. Records too late for their window are dropped.
 *
 * @param <K> key type
 * @param <L> left record type
 * @param <R> right record type
 */
public final class WindowJoin<K, L, R> {
    private final Pipeline pipeline;
    private final StepBuilder left;
    private final KeySelector<? super L, K> leftKey;
    private final StepBuilder right;
    private final KeySelector<? super R, K> rightKey;
    private final WindowAssigner assigner;

    WindowJoin(
            Pipeline pipeline,
            StepBuilder left,
            KeySelector<? super L, K> leftKey,
            StepBuilder right,
            KeySelector<? super R, K> rightKey,
            WindowAssigner assigner) {
        this.pipeline = pipeline;
        this.left = left;
        this.leftKey = leftKey;
        this.right = right;
        this.rightKey = rightKey;
        this.assigner = Objects.requireNonNull(assigner, "assigner");
    }

    /**
     * Joins with {@code function}; window contents are stored with {@link Codecs#auto()}.
     *
     * @param <O> the type of the joined records
     * @param name the join step's name, unique in the pipeline; it keys the window contents in
     *     checkpoints
     * @param function called once per left and right pair of a fired window, on the join task's
     *     thread
     * @return the stream of the records {@code function} emits
     * @throws IllegalArgumentException if {@code name} is not allowed or already used
     */
    public <O> DataStream<O> apply(String name, WindowJoinFunction<K, L, R, O> function) {
        return apply(name, function, Codecs.auto(), Codecs.auto());
    }

    /**
     * Joins with {@code function}, storing window contents with the two codecs.
     *
     * @param <O> the type of the joined records
     * @param name the join step's name, unique in the pipeline; it keys the window contents in
     *     checkpoints
     * @param function called once per left and right pair of a fired window, on the join task's
     *     thread
     * @param leftCodec encodes left records kept in a window, for checkpoints
     * @param rightCodec encodes right records kept in a window, for checkpoints
     * @return the stream of the records {@code function} emits
     * @throws IllegalArgumentException if {@code name} is not allowed or already used
     */
    @SuppressWarnings("unchecked")
    public <O> DataStream<O> apply(
            String name,
            WindowJoinFunction<K, L, R, O> function,
            Codec<L> leftCodec,
            Codec<R> rightCodec) {
        Objects.requireNonNull(function, "function");
        DataStream<IntervalJoinProcess.Side> lefts =
                new DataStream<L>(pipeline, left).map(l -> new IntervalJoinProcess.Side(true, l));
        DataStream<IntervalJoinProcess.Side> rights =
                new DataStream<R>(pipeline, right).map(r -> new IntervalJoinProcess.Side(false, r));
        KeySelector<? super L, K> lk = leftKey;
        KeySelector<? super R, K> rk = rightKey;
        Codec<IntervalJoinProcess.Side> codec =
                new SideCodec(
                        (Codec<Object>) Objects.requireNonNull(leftCodec, "leftCodec"),
                        (Codec<Object>) Objects.requireNonNull(rightCodec, "rightCodec"));
        return lefts.union(rights)
                .keyBy(
                        (IntervalJoinProcess.Side side) ->
                                side.left()
                                        ? lk.getKey((L) side.value())
                                        : rk.getKey((R) side.value()))
                .window(assigner)
                .<O>process(
                        name,
                        (key, context, sides, out) -> {
                            List<Object> ls = new ArrayList<>();
                            List<Object> rs = new ArrayList<>();
                            for (IntervalJoinProcess.Side side : sides) {
                                (side.left() ? ls : rs).add(side.value());
                            }
                            for (Object l : ls) {
                                for (Object r : rs) {
                                    function.join(key, context.window(), (L) l, (R) r, out);
                                }
                            }
                        },
                        codec);
    }

    /** A tagged record: a boolean, then the value in its side's codec. */
    private static final class SideCodec implements Codec<IntervalJoinProcess.Side> {
        private static final long serialVersionUID = 1L;
        private final Codec<Object> left;
        private final Codec<Object> right;

        SideCodec(Codec<Object> left, Codec<Object> right) {
            this.left = left;
            this.right = right;
        }

        @Override
        public void encode(IntervalJoinProcess.Side value, DataOutput out) throws IOException {
            out.writeBoolean(value.left());
            (value.left() ? left : right).encode(value.value(), out);
        }

        @Override
        public IntervalJoinProcess.Side decode(DataInput in) throws IOException {
            boolean isLeft = in.readBoolean();
            return new IntervalJoinProcess.Side(isLeft, (isLeft ? left : right).decode(in));
        }

        @Override
        public String id() {
            return "weir.join-side(" + left.id() + "," + right.id() + ")";
        }
    }
}
