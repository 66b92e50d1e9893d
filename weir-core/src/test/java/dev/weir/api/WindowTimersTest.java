package dev.weir.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.api.codec.Codec;
import dev.weir.api.codec.Codecs;
import dev.weir.api.function.AggregateFunction;
import dev.weir.api.function.Collector;
import dev.weir.api.function.KeyedProcessFunction;
import dev.weir.api.state.KeyedSection;
import dev.weir.api.state.KeyedStateBackend;
import dev.weir.api.state.ListState;
import dev.weir.api.time.TimeDomain;
import dev.weir.api.time.TimerService;
import dev.weir.api.window.TimeWindow;
import dev.weir.api.window.WindowAssigner;
import dev.weir.internal.operators.KeyedProcessOperator;
import dev.weir.internal.operators.OperatorContext;
import dev.weir.internal.operators.Output;
import dev.weir.internal.operators.ProcessingTimeService;
import dev.weir.internal.operators.RecordTime;
import dev.weir.internal.state.HeapKeyedStateBackend;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * How windows use the keyed-process operator's timers: a window's timers are registered when the
 * window opens, not for every record, and the timers of sessions absorbed by a merge are deleted
 * (also in what a checkpoint holds), so no timer fires into nothing. Runs the window function on a
 * {@link KeyedProcessOperator} directly and counts the timer calls it makes.
 */
class WindowTimersTest {
    record Ev(String key, long time) {}

    /** Timer calls the window function made and timers that fired. */
    static final class Counts {
        int registered;
        int deleted;
        int fired;
    }

    /** Counts each record's windows. */
    static final class CountAll implements AggregateFunction<Object, Object, Object> {
        private static final long serialVersionUID = 1L;

        @Override
        public Object createAccumulator() {
            return 0L;
        }

        @Override
        public Object add(Object value, Object accumulator) {
            return (Long) accumulator + 1;
        }

        @Override
        public Object getResult(Object accumulator) {
            return accumulator;
        }

        @Override
        public Object merge(Object a, Object b) {
            return (Long) a + (Long) b;
        }
    }

    /** Passes every call on to the window function, counting the timer calls it makes. */
    static final class Counting implements KeyedProcessFunction<Object, Object, Object> {
        private static final long serialVersionUID = 1L;
        private final KeyedProcessFunction<Object, Object, Object> inner;
        private final transient Counts counts;

        Counting(KeyedProcessFunction<Object, Object, Object> inner, Counts counts) {
            this.inner = inner;
            this.counts = counts;
        }

        @Override
        public void open(OpenContext context) throws Exception {
            inner.open(context);
        }

        @Override
        public void process(Object value, Context<Object, Object> context, Collector<Object> out)
                throws Exception {
            inner.process(value, new CountingContext(context), out);
        }

        @Override
        public void onTimer(
                long timestamp, OnTimerContext<Object, Object> context, Collector<Object> out)
                throws Exception {
            counts.fired++;
            inner.onTimer(timestamp, new CountingContext(context), out);
        }

        final class CountingContext implements OnTimerContext<Object, Object>, TimerService {
            private final Context<Object, Object> context;

            CountingContext(Context<Object, Object> context) {
                this.context = context;
            }

            @Override
            public TimeDomain timeDomain() {
                return ((OnTimerContext<Object, Object>) context).timeDomain();
            }

            @Override
            public Object key() {
                return context.key();
            }

            @Override
            public boolean hasTimestamp() {
                return context.hasTimestamp();
            }

            @Override
            public long timestamp() {
                return context.timestamp();
            }

            @Override
            public TimerService timers() {
                return this;
            }

            @Override
            public <X> void output(OutputTag<X> tag, X value) {
                context.output(tag, value);
            }

            @Override
            public long currentProcessingTime() {
                return context.timers().currentProcessingTime();
            }

            @Override
            public long currentWatermark() {
                return context.timers().currentWatermark();
            }

            @Override
            public void registerEventTimeTimer(long time) {
                counts.registered++;
                context.timers().registerEventTimeTimer(time);
            }

            @Override
            public void registerProcessingTimeTimer(long time) {
                counts.registered++;
                context.timers().registerProcessingTimeTimer(time);
            }

            @Override
            public void deleteEventTimeTimer(long time) {
                counts.deleted++;
                context.timers().deleteEventTimeTimer(time);
            }

            @Override
            public void deleteProcessingTimeTimer(long time) {
                counts.deleted++;
                context.timers().deleteProcessingTimeTimer(time);
            }
        }
    }

    /** A window step on its own operator and heap state, fed by the test. */
    static final class Harness {
        final Counts counts = new Counts();
        final HeapKeyedStateBackend state = new HeapKeyedStateBackend(128);
        final RecordTime time = new RecordTime();
        final List<String> out = new ArrayList<>();
        final KeyedProcessOperator operator;
        final long[] clock = {0};
        final ProcessingTimeService processingTime = new ProcessingTimeService(() -> clock[0]);

        @SuppressWarnings("unchecked")
        Harness(WindowAssigner assigner, long allowedLatenessMillis) throws Exception {
            WindowProcess.Spec spec =
                    new WindowProcess.Spec(
                            "w",
                            assigner,
                            allowedLatenessMillis,
                            null,
                            new WindowProcess.Contents(
                                    new CountAll(), (Codec<Object>) (Codec<?>) Codecs.LONG),
                            (key, context, counts, collector) ->
                                    collector.collect(
                                            String.valueOf(key)
                                                    + context.window()
                                                    + "="
                                                    + counts.iterator().next()));
            operator =
                    new KeyedProcessOperator(
                            record -> ((Ev) record).key(),
                            () -> new Counting(new WindowProcess<>(spec), counts));
            Output output = record -> out.add((String) record);
            operator.open(
                    new OperatorContext(
                            "job",
                            "w",
                            0,
                            1,
                            output,
                            state,
                            "heap",
                            true,
                            -1,
                            time,
                            processingTime,
                            Map.of(),
                            0,
                            "",
                            null));
        }

        void add(String key, long t) {
            time.timestamp = t;
            operator.processElement(new Ev(key, t));
            time.timestamp = RecordTime.NONE;
        }

        void watermark(long watermark) {
            operator.processWatermark(watermark);
        }

        /** Sets the clock to {@code now} and fires the processing-time timers due. */
        void clock(long now) throws Exception {
            clock[0] = now;
            processingTime.fireDue();
        }

        int pending() {
            return operator.pendingTimers(TimeDomain.EVENT_TIME);
        }

        /** Writes the keyed state as a checkpoint does and restores it into a new harness. */
        Harness restoredCopy(WindowAssigner assigner, long allowedLatenessMillis) throws Exception {
            return restoredFrom(state, assigner, allowedLatenessMillis);
        }

        /** A new harness restored from {@code source}'s state, written as a checkpoint does. */
        static Harness restoredFrom(
                KeyedStateBackend source, WindowAssigner assigner, long allowedLatenessMillis)
                throws Exception {
            KeyedStateBackend.KeyedSnapshot snapshot = source.snapshot();
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (DataOutputStream data = new DataOutputStream(bytes)) {
                snapshot.writeTo(data);
            }
            byte[] buffer = bytes.toByteArray();
            Harness restored = new Harness(assigner, allowedLatenessMillis);
            restored.state.restore(
                    new KeyedSection(
                            "heap", snapshot.keyCount(), buffer, 0, buffer.length, List.of()),
                    0,
                    127);
            restored.state.restoreFinished();
            restored.operator.afterStateRestored();
            return restored;
        }
    }

    @Test
    void slidingWindowsRegisterEachWindowsTimerOnceNotPerRecord() throws Exception {
        WindowAssigner sliding =
                WindowAssigner.sliding(Duration.ofMillis(10), Duration.ofMillis(2));
        Harness h = new Harness(sliding, 0);
        Random random = new Random(5);
        Map<String, Map<TimeWindow, Long>> expected = new HashMap<>();
        Map<String, Long> opened = new HashMap<>(); // key and window -> its maxTimestamp
        int records = 0;
        long watermark = Long.MIN_VALUE;
        for (int i = 0; i < 2000; i++) {
            long t = i / 5; // five records per millisecond
            String key = "k" + random.nextInt(3);
            long at = t + random.nextInt(5); // out of order, never behind the watermark's windows
            h.add(key, at);
            records++;
            for (TimeWindow w : sliding.assignWindows(at)) {
                expected.computeIfAbsent(key, k -> new TreeMap<>()).merge(w, 1L, Long::sum);
                opened.put(key + w, w.maxTimestamp());
            }
            if (i % 125 == 124) {
                watermark = t - 20;
                h.watermark(watermark);
            }
        }
        // Each record is in 5 windows: registering per record would make 5 calls per record.
        assertThat(h.counts.registered).isEqualTo(opened.size()).isLessThan(records / 2);
        long lastWatermark = watermark;
        long stillOpen = opened.values().stream().filter(max -> max > lastWatermark).count();
        assertThat(h.pending()).isEqualTo(stillOpen);

        h.watermark(Long.MAX_VALUE);
        assertThat(h.pending()).isZero();
        assertThat(h.counts.fired).isEqualTo(opened.size());
        List<String> want = new ArrayList<>();
        expected.forEach((key, windows) -> windows.forEach((w, n) -> want.add(key + w + "=" + n)));
        assertThat(h.out).containsExactlyInAnyOrderElementsOf(want);
    }

    @ParameterizedTest
    @ValueSource(longs = {0, 5})
    void aSessionMergeDeletesTheAbsorbedSessionsTimersAlsoInTheCheckpoint(long lateness)
            throws Exception {
        WindowAssigner session = WindowAssigner.session(Duration.ofMillis(10));
        int perSession = lateness > 0 ? 2 : 1; // firing and, with lateness, cleanup
        Harness h = new Harness(session, lateness);

        h.add("a", 0); // [0, 10)
        h.add("a", 5); // extends it to [0, 15)
        h.add("a", 12); // ... to [0, 22)
        assertThat(h.pending()).isEqualTo(perSession);
        assertThat(h.counts.registered).isEqualTo(3 * perSession);
        // With lateness, [0, 10)'s cleanup time 14 is [0, 15)'s firing time: that timer stays.
        assertThat(h.counts.deleted).isEqualTo(lateness > 0 ? 3 : 2);

        h.add("a", 3); // inside [0, 22): no timer call at all
        assertThat(h.counts.registered).isEqualTo(3 * perSession);

        h.add("a", 40); // a second session [40, 50)
        h.add("a", 30); // [30, 40) joins it: [30, 50), same end, its timers stay
        h.add("b", 35); // another key's session [35, 45)
        assertThat(h.pending()).isEqualTo(3 * perSession);

        h.add("a", 21); // [21, 31) bridges both of a's sessions: [0, 50)
        assertThat(h.pending()).isEqualTo(2 * perSession);

        // A restore rebuilds the timers from the checkpointed ones: only the merged sessions'.
        Harness restored = h.restoredCopy(session, lateness);
        assertThat(restored.pending()).isEqualTo(2 * perSession);

        restored.watermark(100);
        assertThat(restored.out).containsExactlyInAnyOrder("a[0, 50)=7", "b[35, 45)=1");
        assertThat(restored.counts.fired).isEqualTo(2 * perSession);
        assertThat(restored.pending()).isZero();

        h.watermark(100);
        assertThat(h.out).containsExactlyInAnyOrderElementsOf(restored.out);
        assertThat(h.counts.fired).isEqualTo(2 * perSession);
    }

    /**
     * A key's timer is one per time: an absorbed session's cleanup time can be another open
     * session's firing time (and its firing time another's cleanup time); deleting the absorbed
     * session's timers must keep those, or the other session never fires (or is never dropped).
     */
    @Test
    void aMergeKeepsTheTimersOfAnotherSessionAtTheSameTimes() throws Exception {
        WindowAssigner session = WindowAssigner.session(Duration.ofMillis(3));
        Harness h = new Harness(session, 5);
        h.add("a", 12); // [12, 15): fires at 14, dropped at 19
        h.add("a", 7); // [7, 10): fires at 9, dropped at 14, B's firing time
        h.add("a", 8); // [8, 11) extends it to [7, 11): its timer at 14 is still B's
        assertThat(h.pending()).isEqualTo(4); // 10, 15 (merged); 14, 19 (B)

        h.add("b", 30); // [30, 33): fires at 32, dropped at 37
        h.add("b", 20); // [20, 23): fires at 22, dropped at 27
        h.add("b", 36); // [36, 39): fires at 38 ... 32's cleanup is 37, not 38: unrelated
        h.add("b", 21); // extends [20, 23) to [20, 24): fires 23, dropped 28
        h.add("b", 33); // [33, 36) joins [30, 33) and [36, 39): [30, 39)
        assertThat(h.pending()).isEqualTo(8);

        h.watermark(100);
        assertThat(h.out)
                .containsExactlyInAnyOrder(
                        "a[7, 11)=2", "a[12, 15)=1", "b[20, 24)=2", "b[30, 39)=3");
        assertThat(h.pending()).isZero();
    }

    /** An absorbed session's firing time that is another open session's cleanup time stays. */
    @Test
    void aMergeKeepsAnotherSessionsCleanupTimerAtTheAbsorbedSessionsFiringTime() throws Exception {
        WindowAssigner session = WindowAssigner.session(Duration.ofMillis(3));
        Harness h = new Harness(session, 5);
        h.add("a", 0); // [0, 3): fires at 2, dropped at 7
        h.add("a", 5); // [5, 8): fires at 7 (A's cleanup), dropped at 12
        h.add("a", 9); // [9, 12) touches [5, 8)? no (8 < 9): fires 11, dropped 16
        h.add("a", 8); // [8, 11) joins [5, 8) and [9, 12): [5, 12), fires 11, dropped 16
        // The timer at 7 is [0, 3)'s cleanup: without it the session would never be dropped.
        assertThat(h.pending()).isEqualTo(4); // 2, 7 (A); 11, 16 (merged)
        h.watermark(10);
        assertThat(h.out).containsExactly("a[0, 3)=1");
        h.add("a", 1); // within [0, 3)'s lateness until 7? no: the watermark 10 passed 7: late
        h.watermark(100);
        assertThat(h.out).containsExactly("a[0, 3)=1", "a[5, 12)=3");
        assertThat(h.pending()).isZero();
    }

    @Test
    void aProcessingTimeWindowFiresAtItsEndSoARecordInItsLastMillisecondIsInItsOneResult()
            throws Exception {
        Harness h =
                new Harness(WindowAssigner.tumbling(Duration.ofMillis(20)).inProcessingTime(), 0);
        h.clock(5);
        h.add("a", RecordTime.NONE);
        h.clock(19); // the window's last millisecond: it takes records still
        h.add("a", RecordTime.NONE);
        assertThat(h.out).isEmpty();
        h.clock(20);
        h.add("a", RecordTime.NONE); // the next window's
        assertThat(h.out).containsExactly("a[0, 20)=2");
        h.clock(40);
        assertThat(h.out).containsExactly("a[0, 20)=2", "a[20, 40)=1");
    }

    @Test
    void aProcessingTimeTimerAtTheLastMillisecondFromAnOlderCheckpointFiresTheWindowAtItsEnd()
            throws Exception {
        WindowAssigner windows = WindowAssigner.tumbling(Duration.ofMillis(20)).inProcessingTime();
        Harness h = new Harness(windows, 0);
        h.clock(5);
        h.add("a", RecordTime.NONE);
        // As checkpoints written before windows fired at their end hold it: the timer at 19.
        HeapKeyedStateBackend older = new HeapKeyedStateBackend(128);
        older.restoreLocal(h.state.snapshot());
        older.mapState("windows", TimeWindow.CODEC, Codecs.LONG);
        older.listState("__weir.timers.event", Codecs.LONG);
        ListState<Long> timers = older.listState("__weir.timers.processing", Codecs.LONG);
        older.setCurrentKey("a");
        assertThat(timers.get()).containsExactly(20L);
        timers.update(List.of(19L));
        Harness restored = Harness.restoredFrom(older, windows, 0);
        restored.clock(19);
        restored.add("a", RecordTime.NONE);
        assertThat(restored.out).isEmpty();
        restored.clock(20);
        assertThat(restored.out).containsExactly("a[0, 20)=2");
        restored.clock(100);
        assertThat(restored.out).containsExactly("a[0, 20)=2");
    }
}
