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
}
