package dev.weir.api;

import dev.weir.api.codec.Codec;
import dev.weir.api.codec.Codecs;
import dev.weir.api.function.Collector;
import dev.weir.api.function.KeyedProcessFunction;
import dev.weir.api.function.ProcessJoinFunction;
import dev.weir.api.state.MapState;
import dev.weir.api.time.TimeDomain;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Runs an {@link IntervalJoin} as a keyed process function over the tagged union of both sides.
 * State of a key: {@code left} and {@code right}, maps from a timestamp to the records of that side
 * with that timestamp; an event-time timer per buffered timestamp drops them once no record of the
 * other side can meet them any more.
 */
final class IntervalJoinProcess<K, O>
        implements KeyedProcessFunction<K, IntervalJoinProcess.Side, O> {
    private static final long serialVersionUID = 1L;

    /** A record of either side, tagged. */
    record Side(boolean left, Object value) {}

    /** The settings of a join step. */
    record Spec(
            String name,
            long lowerMillis,
            long upperMillis,
            Codec<Object> leftCodec,
            Codec<Object> rightCodec,
            ProcessJoinFunction<Object, Object, Object> function,
            OutputTag<Object> leftLate,
            OutputTag<Object> rightLate)
            implements Serializable {}

    private final Spec spec;
    private transient MapState<Long, List<Object>> lefts;
    private transient MapState<Long, List<Object>> rights;
    private transient JoinContext joinContext;

    IntervalJoinProcess(Spec spec) {
        this.spec = spec;
    }

    @Override
    public void open(OpenContext context) {
        lefts = context.states().mapState("left", Codecs.LONG, new ListCodec(spec.leftCodec()));
        rights = context.states().mapState("right", Codecs.LONG, new ListCodec(spec.rightCodec()));
        joinContext = new JoinContext();
    }

    @Override
    @SuppressWarnings("unchecked")
    public void process(Side side, Context<K, O> context, Collector<O> out) throws Exception {
        if (!context.hasTimestamp()) {
            throw new IllegalStateException(
                    "interval join '"
                            + spec.name()
                            + "' needs event time on both inputs; call"
                            + " assignTimestampsAndWatermarks before keyBy");
        }
        long time = context.timestamp();
        if (time <= context.timers().currentWatermark()) {
            // Late: partners it could have met may be gone. Not joined; to the side output if any.
            OutputTag<Object> late = side.left() ? spec.leftLate() : spec.rightLate();
            if (late != null) {
                context.output(late, side.value());
            }
            return;
        }
        joinContext.call = context;
        MapState<Long, List<Object>> own = side.left() ? lefts : rights;
        MapState<Long, List<Object>> others = side.left() ? rights : lefts;
        List<Object> same = own.get(time);
        List<Object> added = same == null ? new ArrayList<>(1) : new ArrayList<>(same);
        added.add(side.value());
        own.put(time, added);
        // A left record at t meets right ones in [t + lower, t + upper], and the other way round.
        long from = side.left() ? time + spec.lowerMillis() : time - spec.upperMillis();
        long to = side.left() ? time + spec.upperMillis() : time - spec.lowerMillis();
        for (Map.Entry<Long, List<Object>> entry : others.entries().entrySet()) {
            long otherTime = entry.getKey();
            if (otherTime < from || otherTime > to) {
                continue;
            }
            for (Object other : entry.getValue()) {
                if (side.left()) {
                    joinContext.leftTime = time;
                    joinContext.rightTime = otherTime;
                    spec.function()
                            .process(side.value(), other, joinContext, (Collector<Object>) out);
                } else {
                    joinContext.leftTime = otherTime;
                    joinContext.rightTime = time;
                    spec.function()
                            .process(other, side.value(), joinContext, (Collector<Object>) out);
                }
            }
        }
        context.timers().registerEventTimeTimer(side.left() ? time + spec.upperMillis() : to);
    }

    /** Drops the records no future record of the other side can meet. */
    @Override
    public void onTimer(long timestamp, OnTimerContext<K, O> context, Collector<O> out) {
        if (context.timeDomain() != TimeDomain.EVENT_TIME) {
            return;
        }
        for (Long time : new ArrayList<>(lefts.entries().keySet())) {
            if (time + spec.upperMillis() <= timestamp) {
                lefts.remove(time);
            }
        }
        for (Long time : new ArrayList<>(rights.entries().keySet())) {
            if (time - spec.lowerMillis() <= timestamp) {
                rights.remove(time);
            }
        }
    }

    /** The context a join function sees; one instance, updated before each call. */
    private static final class JoinContext implements ProcessJoinFunction.Context {
        Context<?, ?> call;
        long leftTime;
        long rightTime;

        @Override
        public long leftTimestamp() {
            return leftTime;
        }

        @Override
        public long rightTimestamp() {
            return rightTime;
        }

        @Override
        public <X> void output(dev.weir.api.OutputTag<X> tag, X value) {
            call.output(tag, value);
        }
    }

    /** A list of records, each with the side's codec. */
    private static final class ListCodec implements Codec<List<Object>> {
        private static final long serialVersionUID = 1L;
        private static final String PREFIX = "weir.list(";
        private final Codec<Object> element;

        ListCodec(Codec<Object> element) {
            this.element = element;
        }

        @Override
        public void encode(List<Object> value, DataOutput out) throws IOException {
            out.writeInt(value.size());
            for (Object v : value) {
                element.encode(v, out);
            }
        }

        @Override
        public List<Object> decode(DataInput in) throws IOException {
            int size = in.readInt();
            if (size < 0) {
                throw new IOException("negative list size " + size);
            }
            List<Object> values = new ArrayList<>(Math.min(size, 1024));
            for (int i = 0; i < size; i++) {
                values.add(element.decode(in));
            }
            return values;
        }

        @Override
        public String id() {
            return PREFIX + element.id() + ")";
        }

        @Override
        public boolean canRead(String writtenBy) {
            return writtenBy.startsWith(PREFIX)
                    && writtenBy.endsWith(")")
                    && element.canRead(
                            writtenBy.substring(PREFIX.length(), writtenBy.length() - 1));
        }
    }
}
