package dev.weir.internal.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.ConcurrentModificationException;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * A key's map state against {@link LinkedHashMap}: random puts, removes and copies over keys enough
 * to cross from the array of pairs to the hash map and back, with keys that are equal but not the
 * same object; every read and every view must agree with the model after every step, and the
 * iteration order is the order of insertion while the map is an array.
 */
class StateMapProperties {
    record Op(int action, int key, long value) {}

    @Provide
    Arbitrary<List<Op>> ops() {
        return Combinators.combine(
                        Arbitraries.integers().between(0, 9),
                        Arbitraries.integers().between(0, 3 * StateMap.LINEAR),
                        Arbitraries.longs())
                .as(Op::new)
                .list()
                .ofMaxSize(400);
    }

    @Property(tries = 300)
    void agreesWithAMapOfTheSameEntries(@ForAll("ops") List<Op> ops) {
        StateMap<String, Long> map = new StateMap<>(new Object());
        Map<String, Long> model = new LinkedHashMap<>();
        boolean everHashed = false;
        for (Op op : ops) {
            String key = new String("k" + op.key()); // equal to earlier keys, not the same object
            switch (op.action()) {
                case 0, 1, 2, 3 ->
                        assertThat(map.put(key, op.value())).isEqualTo(model.put(key, op.value()));
                case 4, 5 -> assertThat(map.remove(key)).isEqualTo(model.remove(key));
                case 6 -> {
                    map = new StateMap<>(map, new Object()); // a snapshot's copy goes on
                }
                case 7 -> {
                    StateMap<String, Long> copy = new StateMap<>(map, new Object());
                    copy.put("other", 1L); // a copy's change does not reach the original
                    assertThat(map.containsKey("other")).isEqualTo(model.containsKey("other"));
                }
                case 8 -> {
                    if (op.value() % 10 == 0) {
                        map.clear();
                        model.clear();
                    }
                }
                default -> assertThat(map.get(key)).isEqualTo(model.get(key));
            }
            everHashed |= model.size() > StateMap.LINEAR;
            if (model.isEmpty()) {
                everHashed = false; // an emptied map is an array again
            }
            assertThat(map.size()).isEqualTo(model.size());
            assertThat(map.isEmpty()).isEqualTo(model.isEmpty());
            assertThat(map.containsKey(key)).isEqualTo(model.containsKey(key));
            assertThat(map).isEqualTo(model);
            assertThat(map.hashCode()).isEqualTo(model.hashCode());
            assertThat(map.readOnly()).containsExactlyInAnyOrderEntriesOf(model);
            assertThat(new HashMap<>(map)).isEqualTo(model);
            assertThat(map.values()).containsExactlyInAnyOrderElementsOf(model.values());
            if (!everHashed) {
                assertThat(new ArrayList<>(map.keySet())).containsExactlyElementsOf(model.keySet());
            }
        }
    }

    @Example
    void aChangeDuringAnIterationFailsItAsAHashMapWould() {
        for (int size : new int[] {2, StateMap.LINEAR + 2}) {
            StateMap<Integer, Integer> map = new StateMap<>(new Object());
            for (int i = 0; i < size; i++) {
                map.put(i, i);
            }
            Iterator<Integer> keys = map.readOnly().keySet().iterator();
            keys.next();
            map.remove(0);
            assertThatThrownBy(keys::next).isInstanceOf(ConcurrentModificationException.class);
            Iterator<Map.Entry<Integer, Integer>> entries = map.entrySet().iterator();
            entries.next();
            map.put(100, 100);
            assertThatThrownBy(entries::next).isInstanceOf(ConcurrentModificationException.class);
        }
    }

    /**
     * A loop that changes the map it walks fails, whether the change leaves fewer entries than the
     * walk has seen (it must not just end, leaving entries unvisited) or makes the map a hash map.
     */
    @Example
    void aLoopThatChangesTheMapFailsRatherThanEndingEarly() {
        StateMap<String, Long> map = new StateMap<>(new Object());
        map.put("a", 1L);
        map.put("b", 2L);
        map.put("c", 3L);
        List<String> visited = new ArrayList<>();
        assertThatThrownBy(
                        () -> {
                            for (String key : map.readOnly().keySet()) {
                                visited.add(key);
                                if (!key.equals("a")) {
                                    map.remove(key);
                                }
                            }
                        })
                .isInstanceOf(ConcurrentModificationException.class);
        assertThat(visited).containsExactly("a", "b");

        StateMap<String, Long> full = new StateMap<>(new Object());
        for (int i = 0; i < StateMap.LINEAR; i++) {
            full.put("k" + i, (long) i);
        }
        assertThatThrownBy(
                        () -> {
                            for (Map.Entry<String, Long> entry : full.readOnly().entrySet()) {
                                full.put(entry.getKey() + "+", 0L); // the ninth: a hash map now
                            }
                        })
                .isInstanceOf(ConcurrentModificationException.class);

        // A walk that ended before the change stays ended, as a hash map's does.
        Iterator<String> done = map.keySet().iterator();
        while (done.hasNext()) {
            done.next();
        }
        map.put("z", 9L);
        assertThat(done.hasNext()).isFalse();
    }

    @Example
    void theReadOnlyViewRefusesChangesAndFollowsTheMap() {
        StateMap<Integer, Integer> map = new StateMap<>(new Object());
        Map<Integer, Integer> view = map.readOnly();
        assertThat(map.readOnly()).isSameAs(view);
        for (int i = 0; i < 3 * StateMap.LINEAR; i++) {
            map.put(i, i);
            assertThat(view).hasSize(i + 1).containsEntry(i, i);
        }
        assertThatThrownBy(() -> view.put(1, 2)).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> view.keySet().iterator().remove())
                .isInstanceOf(UnsupportedOperationException.class);
    }
}
