package dev.weir.internal.operators;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.api.function.Collector;
import dev.weir.api.function.KeyedProcessFunction;
import dev.weir.api.state.KeyedSection;
import dev.weir.api.state.KeyedStateBackend;
import dev.weir.api.time.TimeDomain;
import dev.weir.internal.state.HeapKeyedStateBackend;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The keyed-process operator's timers as its checkpoint holds them: registered, deleted (from the
 * start, the middle and the end of a key's timers) and fired timers leave exactly the pending ones
 * in the keyed state, so a restore fires each of those once and nothing else.
 */
class KeyedProcessTimersTest {
    /**
     * A command record for key {@code key}: register ({@code +t}) or delete ({@code -t}) a timer.
     */
    record Cmd(String key, long time, boolean register) {}

    /** Applies commands; a timer emits "key@time". */
    static final class Timers implements KeyedProcessFunction<Object, Object, Object> {
        private static final long serialVersionUID = 1L;

        @Override
        public void process(Object value, Context<Object, Object> context, Collector<Object> out) {
            Cmd cmd = (Cmd) value;
            if (cmd.register()) {
                context.timers().registerEventTimeTimer(cmd.time());
            } else {
                context.timers().deleteEventTimeTimer(cmd.time());
            }
        }

        @Override
        public void onTimer(
                long timestamp, OnTimerContext<Object, Object> context, Collector<Object> out) {
            out.collect(context.key() + "@" + timestamp);
        }
    }

    static final class Harness {
        final HeapKeyedStateBackend state = new HeapKeyedStateBackend(128);
        final List<Object> out = new ArrayList<>();
        final KeyedProcessOperator operator =
                new KeyedProcessOperator(record -> ((Cmd) record).key(), Timers::new);

        Harness() throws Exception {
            Output output = out::add;
            operator.open(
                    new OperatorContext(
                            "job",
                            "timers",
                            0,
                            1,
                            output,
                            state,
                            "heap",
                            true,
                            -1,
                            new RecordTime(),
                            new ProcessingTimeService(() -> 0L),
                            Map.of(),
                            0,
                            "",
                            null));
        }

        void register(String key, long... times) {
            for (long t : times) {
                operator.processElement(new Cmd(key, t, true));
            }
        }

        void delete(String key, long... times) {
            for (long t : times) {
                operator.processElement(new Cmd(key, t, false));
            }
        }

        /** The keyed state written as a checkpoint would, restored into a new operator. */
        Harness restored() throws Exception {
            KeyedStateBackend.KeyedSnapshot snapshot = state.snapshot();
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (DataOutputStream data = new DataOutputStream(bytes)) {
                snapshot.writeTo(data);
            }
            byte[] buffer = bytes.toByteArray();
            Harness restored = new Harness();
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
    void deletedAndFiredTimersLeaveTheCheckpointedTimersAndOnlyThePendingOnesFireAfterARestore()
            throws Exception {
        Harness h = new Harness();
        h.register("a", 50, 10, 30, 20, 40, 60);
        h.register("a", 30); // exists already
        h.register("b", 30, 5);
        h.delete("a", 30); // from the middle
        h.delete("a", 50); // the first registered
        h.delete("a", 60); // the last
        h.delete("a", 99); // none
        assertThat(h.operator.pendingTimers(TimeDomain.EVENT_TIME)).isEqualTo(5);

        h.operator.processWatermark(10); // fires a@10 and b@5
        assertThat(h.out).containsExactly("b@5", "a@10");
        h.register("a", 10); // again, after it fired
        assertThat(h.operator.pendingTimers(TimeDomain.EVENT_TIME)).isEqualTo(4);

        Harness restored = h.restored();
        assertThat(restored.operator.pendingTimers(TimeDomain.EVENT_TIME)).isEqualTo(4);
        restored.operator.processWatermark(Long.MAX_VALUE);
        // Time order; keys of one time in the order they were registered (restored: key order).
        assertThat(restored.out).containsExactly("a@10", "a@20", "b@30", "a@40");
        assertThat(restored.operator.pendingTimers(TimeDomain.EVENT_TIME)).isZero();
    }
}
