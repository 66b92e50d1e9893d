package dev.weir.internal.operators;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class TimerQueueTest {
    /** Fires everything due at {@code upTo} as "time:key" strings, in firing order. */
    private static List<String> fire(TimerQueue queue, long upTo) {
        List<String> fired = new ArrayList<>();
        TimerQueue.KeySet due;
        while ((due = queue.pollDue(upTo)) != null) {
            for (int i = 0; i < due.end; i++) {
                if (due.keys[i] != null) {
                    fired.add(due.time + ":" + due.keys[i]);
                }
            }
            queue.recycle(due);
        }
        return fired;
    }

    @Test
    void timersFireInTimeOrderAndKeysOfOneTimeInRegistrationOrder() {
        TimerQueue queue = new TimerQueue();
        assertThat(queue.add(20, "b")).isTrue();
        assertThat(queue.add(10, "a")).isTrue();
        assertThat(queue.add(20, "a")).isTrue();
        assertThat(queue.add(20, "b")).isFalse(); // exists: not a second timer
        assertThat(queue.size()).isEqualTo(3);
        assertThat(queue.earliest()).isEqualTo(10);

        assertThat(fire(queue, 15)).containsExactly("10:a");
        assertThat(fire(queue, 30)).containsExactly("20:b", "20:a");
        assertThat(queue.size()).isZero();
        assertThat(queue.earliest()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void aDeletedTimerDoesNotFireAndCanBeRegisteredAgain() {
        TimerQueue queue = new TimerQueue();
        queue.add(5, 1L);
        queue.add(5, 2L);
        assertThat(queue.delete(5, 1L)).isTrue();
        assertThat(queue.delete(5, 1L)).isFalse();
        assertThat(queue.delete(6, 2L)).isFalse();
        assertThat(queue.contains(5, 1L)).isFalse();
        assertThat(queue.size()).isEqualTo(1);
        assertThat(queue.add(5, 1L)).isTrue();
        assertThat(fire(queue, 5)).containsExactly("5:2", "5:1");
    }

    /**
     * Many keys and times, random registrations, deletions and firings against a plain model:
     * exercises the time map's deletions, the heap, and large key sets with deleted slots.
     */
    @Test
    void behavesAsASortedMapOfInsertionOrderedSets() {
        Random random = new Random(14);
        for (int round = 0; round < 20; round++) {
            TimerQueue queue = new TimerQueue();
            TreeMap<Long, LinkedHashSet<Long>> model = new TreeMap<>();
            int modelSize = 0;
            long watermark = 0;
            int times = 1 + random.nextInt(round < 10 ? 5 : 200);
            int keys = 1 + random.nextInt(round % 2 == 0 ? 10 : 2_000);
            for (int step = 0; step < 20_000; step++) {
                int op = random.nextInt(100);
                long time = watermark + 1 + random.nextInt(times);
                long key = random.nextInt(keys);
                if (op < 55) {
                    boolean added =
                            model.computeIfAbsent(time, t -> new LinkedHashSet<>()).add(key);
                    modelSize += added ? 1 : 0;
                    assertThat(queue.add(time, key)).isEqualTo(added);
                } else if (op < 90) {
                    LinkedHashSet<Long> at = model.get(time);
                    boolean removed = at != null && at.remove(key);
                    modelSize -= removed ? 1 : 0;
                    assertThat(queue.delete(time, key)).isEqualTo(removed);
                } else if (op < 95) {
                    LinkedHashSet<Long> at = model.get(time);
                    assertThat(queue.contains(time, key)).isEqualTo(at != null && at.contains(key));
                } else {
                    watermark += random.nextInt(times + 1);
                    List<String> expected = new ArrayList<>();
                    Map<Long, LinkedHashSet<Long>> due = model.headMap(watermark, true);
                    for (Map.Entry<Long, LinkedHashSet<Long>> e : due.entrySet()) {
                        for (long k : e.getValue()) {
                            expected.add(e.getKey() + ":" + k);
                        }
                        modelSize -= e.getValue().size();
                    }
                    due.clear();
                    assertThat(fire(queue, watermark)).containsExactlyElementsOf(expected);
                }
                assertThat(queue.size()).isEqualTo(modelSize);
            }
        }
    }

    /**
     * The queue against the same model where the first test does not go: keys of equal value and
     * different class ({@code 5L} and {@code 5}), registrations at or before the time already
     * polled (a new timer each), a clock that goes back a little (the processing clock may),
     * registrations and deletions between two sets of one firing, and tens of thousands of keys.
     */
    @Test
    void equalValuesOfOtherClassesLateTimesAndChangesWhileFiring() {
        Random random = new Random(18);
        for (int round = 0; round < 24; round++) {
            TimerQueue queue = new TimerQueue();
            TreeMap<Long, LinkedHashSet<Object>> model = new TreeMap<>();
            int modelSize = 0;
            long clock = 0;
            int times = 1 + random.nextInt(round < 8 ? 4 : 60);
            int keys = 1 + random.nextInt(round % 3 == 0 ? 8 : round % 3 == 1 ? 3_000 : 40_000);
            for (int step = 0; step < 30_000; step++) {
                int op = random.nextInt(100);
                // Around the clock: some at or before what was polled.
                long time = clock - 2 + random.nextInt(times + 3);
                long value = random.nextInt(keys);
                Object key = random.nextInt(8) == 0 ? (Object) (int) value : (Object) value;
                if (op < 60) {
                    boolean added =
                            model.computeIfAbsent(time, t -> new LinkedHashSet<>()).add(key);
                    modelSize += added ? 1 : 0;
                    assertThat(queue.add(time, key)).as("add %s at %d", key, time).isEqualTo(added);
                } else if (op < 85) {
                    LinkedHashSet<Object> at = model.get(time);
                    boolean removed = at != null && at.remove(key);
                    modelSize -= removed ? 1 : 0;
                    assertThat(queue.delete(time, key)).isEqualTo(removed);
                } else if (op < 90) {
                    LinkedHashSet<Object> at = model.get(time);
                    assertThat(queue.contains(time, key)).isEqualTo(at != null && at.contains(key));
                } else {
                    // The clock moves on, or back by a little (a processing clock may).
                    clock += random.nextInt(times + 1) - (random.nextInt(4) == 0 ? 2 : 0);
                    TimerQueue.KeySet due;
                    while ((due = queue.pollDue(clock)) != null) {
                        Map.Entry<Long, LinkedHashSet<Object>> first = model.firstEntry();
                        while (first.getValue().isEmpty()) {
                            model.remove(first.getKey());
                            first = model.firstEntry();
                        }
                        assertThat(due.time).isEqualTo(first.getKey());
                        List<Object> fired = new ArrayList<>();
                        for (int i = 0; i < due.end; i++) {
                            if (due.keys[i] != null) {
                                fired.add(due.keys[i]);
                            }
                        }
                        assertThat(fired).containsExactlyElementsOf(first.getValue());
                        modelSize -= fired.size();
                        model.remove(first.getKey());
                        // While a set fires: register its own time again and delete one of its
                        // keys.
                        if (!fired.isEmpty() && random.nextBoolean()) {
                            Object again = fired.get(random.nextInt(fired.size()));
                            boolean added =
                                    model.computeIfAbsent(due.time, t -> new LinkedHashSet<>())
                                            .add(again);
                            modelSize += added ? 1 : 0;
                            assertThat(queue.add(due.time, again)).isEqualTo(added);
                            assertThat(queue.delete(due.time, fired.get(0)))
                                    .isEqualTo(model.get(due.time).remove(fired.get(0)));
                            modelSize -= again.equals(fired.get(0)) ? 1 : 0;
                        }
                        queue.recycle(due);
                    }
                    model.headMap(clock, true).values().removeIf(LinkedHashSet::isEmpty);
                }
                assertThat(queue.size()).isEqualTo(modelSize);
            }
        }
    }
}
