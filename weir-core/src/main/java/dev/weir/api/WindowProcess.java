package dev.weir.api;

import dev.weir.api.codec.Codec;
import dev.weir.api.codec.Codecs;
import dev.weir.api.function.AggregateFunction;
import dev.weir.api.function.Collector;
import dev.weir.api.function.KeyedProcessFunction;
import dev.weir.api.function.ProcessWindowFunction;
import dev.weir.api.state.ListState;
import dev.weir.api.state.MapState;
import dev.weir.api.time.TimeDomain;
import dev.weir.api.time.TimerService;
import dev.weir.api.window.TimeWindow;
import dev.weir.api.window.WindowAssigner;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Runs the windows of a {@link WindowedStream} as a keyed process function, so windows are built on
 * the keyed-process machinery: their contents are keyed state and their firing times are keyed
 * timers, and both are checkpointed, restored and redistributed on rescaling with their keys.
 *
 * <h2>State of a key</h2>
 *
 * {@code windows}: a map from each open window to its accumulator (incremental functions) or to the
 * number of its records (window functions that see all records, whose records are kept in the list
 * {@code elements} as (window, record) pairs, so that adding one is an append).
 *
 * <h2>When windows fire</h2>
 *
 * Event time: a window fires when the watermark reaches its {@link TimeWindow#maxTimestamp()} (one
 * timer per window) and is dropped at its cleanup time, {@code maxTimestamp + allowedLateness} (a
 * second timer, if the lateness is not zero). A record whose windows are all past their cleanup
 * time is late: it goes to the late-data side output, or is dropped. A record admitted into a
 * window that already fired fires it again at once, with all its records (an updated result).
 * Processing time: a window fires and is dropped when the clock reaches its end (not its last
 * millisecond, {@code maxTimestamp}: a record that arrived later in that millisecond would belong
 * to the window and open it again, and the window would fire twice); at the end of a bounded input
 * the windows still open fire. Session windows merge when a record's window {@code [t, t + gap)}
 * touches open ones; the absorbed sessions' timers are deleted. Timers are set when a record opens
 * a window, not for every record (Nexmark q5 and q11 spent a sixth and a third of their time
 * re-registering timers that existed), and a timer looks only at the windows due at its time.
 */
final class WindowProcess<K, T, R> implements KeyedProcessFunction<K, T, R> {
    private static final long serialVersionUID = 1L;

    /** What a window keeps: an accumulator (incremental) or its records. */
    record Contents(AggregateFunction<Object, Object, Object> aggregate, Codec<Object> codec)
            implements Serializable {
        boolean incremental() {
            return aggregate != null;
        }
    }

    /** The settings of a windowed step. */
    record Spec(
            String name,
            WindowAssigner assigner,
            long allowedLatenessMillis,
            OutputTag<Object> lateTag,
            Contents contents,
            ProcessWindowFunction<Object, Object, Object> function)
            implements Serializable {}

    private final Spec spec;
    private final boolean eventTime;
    private transient MapState<TimeWindow, Object> windows;
    private transient ListState<Windowed> elements;
    private transient WindowContext windowContext;

    /** The starts of a record's windows, latest first (tumbling and sliding windows). */
    private transient long[] starts;

    /** Windows made recently, by start: keys of many records share them. */
    private transient TimeWindow[] recent;

    /** The windows a record's session absorbs (sessions). */
    private transient List<TimeWindow> absorbed;

    /** Windows due at a timer, when more than one is (the first is kept apart). */
    private transient List<TimeWindow> due;

    /**
     * True for event-time windows that do not merge, without allowed lateness: each is dropped when
     * it fires, at its one timer, so a timer finds its window without looking at the others.
     */
    private final boolean oneWindowPerTimer;

    WindowProcess(Spec spec) {
        this.spec = spec;
        this.eventTime = spec.assigner().timeDomain() == TimeDomain.EVENT_TIME;
        this.oneWindowPerTimer =
                eventTime && !spec.assigner().isMerging() && spec.allowedLatenessMillis() == 0;
    }

    @Override
    @SuppressWarnings("unchecked")
    public void open(OpenContext context) {
        windowContext = new WindowContext();
        WindowAssigner assigner = spec.assigner();
        if (!assigner.isMerging()) {
            starts = new long[(int) (assigner.sizeMillis() / slide(assigner)) + 1];
        }
        recent = new TimeWindow[RECENT];
        absorbed = new ArrayList<>();
        due = new ArrayList<>();
        Codec<?> valueCodec = spec.contents().incremental() ? spec.contents().codec() : Codecs.INT;
        windows =
                context.states().mapState("windows", TimeWindow.CODEC, (Codec<Object>) valueCodec);
        if (!spec.contents().incremental()) {
            elements =
                    context.states()
                            .listState("elements", new WindowedCodec(spec.contents().codec()));
        }
    }

    @Override
    public void process(T value, Context<K, R> context, Collector<R> out) throws Exception {
        TimerService timers = context.timers();
        long time;
        if (eventTime) {
            if (!context.hasTimestamp()) {
                throw new IllegalStateException(
                        "window '"
                                + spec.name()
                                + "' uses event time but a record carries no timestamp (or"
                                + " Long.MIN_VALUE, which stands for none); call"
                                + " assignTimestampsAndWatermarks before keyBy, or use"
                                + " WindowAssigner.inProcessingTime()");
            }
            time = context.timestamp();
        } else {
            time = timers.currentProcessingTime();
        }
        long watermark = timers.currentWatermark();
        windowContext.enter(context);
        boolean admitted =
                spec.assigner().isMerging()
                        ? addToSession(value, time, watermark, context, out)
                        : addToWindows(value, time, watermark, context, out);
        if (!admitted && spec.lateTag() != null) {
            context.output(spec.lateTag(), value);
        }
    }

    private static final int RECENT = 64;

    private static long slide(WindowAssigner assigner) {
        return assigner.kind() == WindowAssigner.Kind.SLIDING
                ? assigner.slideMillis()
                : assigner.sizeMillis();
    }

    /**
     * The window {@code [start, end)}: one made recently if it is cached, so that a record's
     * windows are not allocated again for each record (they are immutable keys).
     */
    private TimeWindow window(long start, long end) {
        int slot = (int) ((start * 0x9E3779B97F4A7C15L) >>> (64 - 6));
        TimeWindow cached = recent[slot];
        if (cached != null && cached.start() == start && cached.end() == end) {
            return cached;
        }
        TimeWindow made = new TimeWindow(start, end);
        recent[slot] = made;
        return made;
    }

    /**
     * Adds the record to its windows, earliest first, as {@link WindowAssigner#assignWindows} lists
     * them (without building the list).
     */
    private boolean addToWindows(
            T value, long time, long watermark, Context<K, R> context, Collector<R> out)
            throws Exception {
        WindowAssigner assigner = spec.assigner();
        long size = assigner.sizeMillis();
        long slide = slide(assigner);
        // The latest window start at or before the time, in arithmetic that cannot overflow.
        long sinceStart =
                Math.floorMod(
                        Math.floorMod(time, slide) - Math.floorMod(assigner.offsetMillis(), slide),
                        slide);
        long last;
        try {
            last = Math.subtractExact(time, sinceStart);
            Math.addExact(last, size); // the last window's end
        } catch (ArithmeticException e) {
            throw overflow(time);
        }
        long[] starts = this.starts;
        int n = 0;
        // Every window that still contains the time (its end after it), earliest last.
        for (long s = last; s + size > time; s -= slide) {
            starts[n++] = s;
            if (s < Long.MIN_VALUE + slide) { // the next start is below the range
                if (s + size - time > slide) {
                    throw overflow(time); // and its window would contain the time
                }
                break;
            }
        }
        boolean admitted = false;
        for (int i = n - 1; i >= 0; i--) {
            TimeWindow window = window(starts[i], starts[i] + size);
            if (isLate(window, watermark)) {
                continue;
            }
            admitted = true;
            boolean opened = add(window, windows.get(window), value);
            afterAdd(window, opened, watermark, context, out);
        }
        return admitted;
    }

    private boolean addToSession(
            T value, long time, long watermark, Context<K, R> context, Collector<R> out)
            throws Exception {
        if (time > Long.MAX_VALUE - spec.assigner().sizeMillis()) {
            throw overflow(time);
        }
        // The merged window's bounds, as numbers until it is known whether it is a new window.
        long start = time;
        long end = time + spec.assigner().sizeMillis();
        List<TimeWindow> absorbed = this.absorbed;
        absorbed.clear();
        Map<TimeWindow, Object> open = windows.entries();
        int count = open.size();
        // Until a pass over the open sessions leaves the merged window as it was (usually the
        // first: the record falls in or extends its key's one session). Touching sessions merge.
        // A session already past its cleanup time is one a run with more allowed lateness kept
        // (fired), restored from its checkpoint: it takes no record, and its own timer drops it.
        // (With one lateness throughout, its cleanup timer dropped it before this record came.)
        boolean grew = count > 0;
        while (grew && absorbed.size() < count) {
            grew = false;
            for (TimeWindow session : open.keySet()) {
                if (session.start() <= end
                        && start <= session.end()
                        && !isLate(session, watermark) // see above
                        && !absorbed.contains(session)) {
                    absorbed.add(session);
                    if (session.start() < start || session.end() > end) {
                        start = Math.min(start, session.start());
                        end = Math.max(end, session.end());
                        grew = true;
                    }
                }
            }
        }
        TimeWindow merged =
                absorbed.size() == 1
                                && absorbed.get(0).start() == start
                                && absorbed.get(0).end() == end
                        ? absorbed.get(0)
                        : new TimeWindow(start, end);
        if (absorbed.isEmpty() && isLate(merged, watermark)) {
            return false;
        }
        // A merge opens a new window (its timers are set), even though it has contents already.
        boolean opened = !(absorbed.size() == 1 && absorbed.get(0) == merged);
        Object contents;
        if (opened) {
            contents = mergeInto(merged, absorbed);
            deleteTimers(absorbed, merged, context.timers());
        } else {
            contents = windows.get(merged); // the record fell inside an open session
        }
        add(merged, contents, value);
        afterAdd(merged, opened, watermark, context, out);
        return true;
    }

    /**
     * Removes the {@code absorbed} windows and returns their contents combined, for the new window
     * {@code merged} (the caller puts it there with the record); null if none.
     */
    private Object mergeInto(TimeWindow merged, List<TimeWindow> absorbed) throws Exception {
        if (absorbed.isEmpty()) {
            return null;
        }
        Object combined = null;
        for (TimeWindow window : absorbed) {
            Object contents = windows.get(window);
            windows.remove(window);
            if (spec.contents().incremental()) {
                combined =
                        combined == null
                                ? contents
                                : spec.contents().aggregate().merge(combined, contents);
            } else {
                combined = (combined == null ? 0 : (Integer) combined) + (Integer) contents;
            }
        }
        if (!spec.contents().incremental()) {
            List<Windowed> relabelled = new ArrayList<>(elements.get().size());
            for (Windowed element : elements.get()) {
                relabelled.add(
                        absorbed.contains(element.window())
                                ? new Windowed(merged, element.value())
                                : element);
            }
            elements.update(relabelled);
        }
        return combined;
    }

    /**
     * The timers of sessions absorbed into {@code merged} would fire into nothing: deleted. A key
     * has one timer per time, so a time another window of the key still needs keeps its timer: the
     * merged window's, or another open session's (an absorbed session's cleanup time can be another
     * session's firing time, and the other way round). Called after the absorbed windows left the
     * map, so the map holds the other sessions only.
     */
    private void deleteTimers(List<TimeWindow> absorbed, TimeWindow merged, TimerService timers) {
        boolean cleanup = eventTime && spec.allowedLatenessMillis() > 0;
        for (TimeWindow old : absorbed) {
            long fires = firesAt(old);
            if (!needsTimerAt(fires, merged)) {
                if (eventTime) {
                    timers.deleteEventTimeTimer(fires);
                } else {
                    timers.deleteProcessingTimeTimer(fires);
                }
            }
            if (cleanup && !needsTimerAt(cleanupTime(old), merged)) {
                timers.deleteEventTimeTimer(cleanupTime(old));
            }
        }
    }

    /** True if {@code merged} or an open window of the key fires or is dropped at {@code time}. */
    private boolean needsTimerAt(long time, TimeWindow merged) {
        if (timerAt(merged, time)) {
            return true;
        }
        for (TimeWindow open : windows.entries().keySet()) {
            if (timerAt(open, time)) {
                return true;
            }
        }
        return false;
    }

    /** True if {@code window} has a timer at {@code time}: it fires or is dropped then. */
    private boolean timerAt(TimeWindow window, long time) {
        return firesAt(window) == time
                || (eventTime && spec.allowedLatenessMillis() > 0 && cleanupTime(window) == time);
    }

    /**
     * The time of {@code window}'s firing timer: its last millisecond in event time (the watermark
     * says no record at or before it will come), its end in processing time (records come while the
     * clock is still in the last millisecond).
     */
    private long firesAt(TimeWindow window) {
        return eventTime ? window.maxTimestamp() : window.end();
    }

    /**
     * The refusal of a record whose windows do not fit in a long: a bound would overflow, and the
     * record would fall in no window (dropped without a word, as before this check) or in a window
     * that wraps around.
     */
    private IllegalArgumentException overflow(long time) {
        return new IllegalArgumentException(
                "window '"
                        + spec.name()
                        + "': a record's timestamp "
                        + time
                        + " is too close to the end of the long range for windows of "
                        + spec.assigner().sizeMillis()
                        + " ms: their bounds would overflow. Timestamps are milliseconds since"
                        + " the epoch; fix or filter out such records before the window (the"
                        + " timestamp assigner or a filter)");
    }

    /**
     * Adds {@code value} to {@code window}, whose contents are {@code contents} (null if it is not
     * open); true if that opened the window.
     */
    private boolean add(TimeWindow window, Object contents, T value) throws Exception {
        if (spec.contents().incremental()) {
            AggregateFunction<Object, Object, Object> aggregate = spec.contents().aggregate();
            Object accumulator = contents == null ? aggregate.createAccumulator() : contents;
            windows.put(window, aggregate.add(value, accumulator));
        } else {
            windows.put(window, contents == null ? 1 : (Integer) contents + 1);
            elements.add(new Windowed(window, value));
        }
        return contents == null;
    }

    /**
     * Fires a window already due (a late record within the lateness), or sets the timers of a
     * window the record {@code opened} (an open window has them already).
     */
    private void afterAdd(
            TimeWindow window,
            boolean opened,
            long watermark,
            Context<K, R> context,
            Collector<R> out)
            throws Exception {
        TimerService timers = context.timers();
        if (!eventTime) {
            if (opened) {
                timers.registerProcessingTimeTimer(firesAt(window));
            }
            return;
        }
        if (window.maxTimestamp() <= watermark) {
            emit(context.key(), window, out);
        } else if (opened) {
            timers.registerEventTimeTimer(window.maxTimestamp());
        }
        if (opened && spec.allowedLatenessMillis() > 0) {
            timers.registerEventTimeTimer(cleanupTime(window));
        }
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext<K, R> context, Collector<R> out)
            throws Exception {
        if (context.timeDomain() != spec.assigner().timeDomain()) {
            return;
        }
        windowContext.enter(context);
        if (oneWindowPerTimer && timestamp != Long.MAX_VALUE) {
            // Event time, no merging, no lateness: a window is open only until its end, whose
            // timer this is, so the timer concerns exactly the window ending here.
            TimeWindow window = window(timestamp + 1 - spec.assigner().sizeMillis(), timestamp + 1);
            if (windows.contains(window)) {
                emit(context.key(), window, out);
                purge(window);
            }
            if (windows.entries().isEmpty()) {
                return;
            }
            // Windows that ended before this timer fired at their own: only a run with allowed
            // lateness, whose checkpoint this run restored, can have left them, each with a cleanup
            // timer that may be this one (an old lateness of whole slides falls on a later
            // window's end). The scan below drops them (their cleanup time, their end, is due);
            // without it they would stay, and the end of a bounded input would emit them again.
        }
        // Only the windows this timer concerns, in time order (a key may have many open); copied
        // out of the map, which firing changes, and sorted only when more than one is due.
        TimeWindow first = null;
        List<TimeWindow> more = this.due;
        more.clear();
        for (TimeWindow window : windows.entries().keySet()) {
            if (eventTime
                    ? window.maxTimestamp() == timestamp || cleanupTime(window) <= timestamp
                    : window.end() <= timestamp) {
                if (first == null) {
                    first = window;
                } else {
                    more.add(window);
                }
            } else if (!eventTime && window.maxTimestamp() == timestamp) {
                // A timer at the window's last millisecond, as checkpoints taken before windows
                // in processing time fired at their end hold: it fires at its end, like new ones.
                context.timers().registerProcessingTimeTimer(window.end());
            }
        }
        if (first == null) {
            return;
        }
        if (more.isEmpty()) {
            fireDue(first, timestamp, context, out);
            return;
        }
        more.add(first);
        more.sort(null);
        for (int i = 0; i < more.size(); i++) {
            fireDue(more.get(i), timestamp, context, out);
        }
    }

    /** Fires and/or drops one window due at the timer {@code timestamp}. */
    private void fireDue(
            TimeWindow window, long timestamp, OnTimerContext<K, R> context, Collector<R> out)
            throws Exception {
        if (eventTime) {
            if (window.maxTimestamp() == timestamp) {
                emit(context.key(), window, out);
            }
            if (cleanupTime(window) <= timestamp) {
                purge(window);
            } else {
                // Set when the window opened, unless a run without allowed lateness opened it
                // (restored from its checkpoint): without it the window would stay, and the end
                // of the input would emit it again. Setting a timer that exists changes nothing.
                context.timers().registerEventTimeTimer(cleanupTime(window));
            }
        } else if (window.end() <= timestamp) {
            emit(context.key(), window, out);
            purge(window);
        }
    }

    /** Processing-time windows still open when a bounded input ends fire now. */
    @Override
    public void onEndOfInput(EndOfInputContext<K, R> context, Collector<R> out) throws Exception {
        windowContext.call = null;
        windowContext.end = context;
        context.forEachKey(
                key -> {
                    for (TimeWindow window : new TreeSet<>(windows.entries().keySet())) {
                        emit(key, window, out);
                        purge(window);
                    }
                });
    }

    @SuppressWarnings("unchecked")
    private void emit(K key, TimeWindow window, Collector<R> out) throws Exception {
        Object contents = windows.get(window);
        Iterable<Object> values;
        if (spec.contents().incremental()) {
            values = List.of(spec.contents().aggregate().getResult(contents));
        } else {
            List<Object> records = new ArrayList<>((Integer) contents);
            for (Windowed element : elements.get()) {
                if (element.window().equals(window)) {
                    records.add(element.value());
                }
            }
            values = records;
        }
        windowContext.window = window;
        spec.function().process(key, windowContext, values, (Collector<Object>) out);
    }

    private void purge(TimeWindow window) {
        windows.remove(window);
        if (!spec.contents().incremental()) {
            List<Windowed> kept = new ArrayList<>();
            for (Windowed element : elements.get()) {
                if (!element.window().equals(window)) {
                    kept.add(element);
                }
            }
            if (kept.isEmpty()) {
                elements.clear();
            } else {
                elements.update(kept);
            }
        }
    }

    /** True if the watermark passed the window's cleanup time: it takes no more records. */
    private boolean isLate(TimeWindow window, long watermark) {
        return eventTime && cleanupTime(window) <= watermark;
    }

    private long cleanupTime(TimeWindow window) {
        long cleanup = window.maxTimestamp() + spec.allowedLatenessMillis();
        return cleanup < window.maxTimestamp() ? Long.MAX_VALUE : cleanup;
    }

    /** The context a window function sees; one instance, updated before each call. */
    private static final class WindowContext implements ProcessWindowFunction.Context {
        TimeWindow window;

        /** The context of the current process or onTimer call, or null at the end of input. */
        Context<?, ?> call;

        /** The context of the end of input, or null before. */
        EndOfInputContext<?, ?> end;

        /** The timers of the last call (the clock, after the end of input). */
        TimerService timers;

        void enter(Context<?, ?> context) {
            call = context;
            timers = context.timers();
        }

        @Override
        public TimeWindow window() {
            return window;
        }

        @Override
        public long currentWatermark() {
            return call != null ? call.timers().currentWatermark() : Long.MAX_VALUE;
        }

        @Override
        public long currentProcessingTime() {
            return timers != null ? timers.currentProcessingTime() : System.currentTimeMillis();
        }

        @Override
        public <X> void output(OutputTag<X> tag, X value) {
            if (call != null) {
                call.output(tag, value);
            } else {
                end.output(tag, value);
            }
        }
    }

    /** One record of a window kept whole. */
    record Windowed(TimeWindow window, Object value) {}

    /** Writes a (window, record) pair with the record's codec. */
    private static final class WindowedCodec implements Codec<Windowed> {
        private static final long serialVersionUID = 1L;
        private static final String PREFIX = "weir.windowed(";
        private final Codec<Object> element;

        WindowedCodec(Codec<Object> element) {
            this.element = element;
        }

        @Override
        public void encode(Windowed value, DataOutput out) throws IOException {
            TimeWindow.CODEC.encode(value.window(), out);
            element.encode(value.value(), out);
        }

        @Override
        public Windowed decode(DataInput in) throws IOException {
            return new Windowed(TimeWindow.CODEC.decode(in), element.decode(in));
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
