package dev.weir.internal.state;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.api.codec.Codecs;
import dev.weir.api.state.KeyGroups;
import dev.weir.api.state.ListState;
import dev.weir.api.state.MapState;
import dev.weir.api.state.ValueState;
import dev.weir.internal.checkpoint.StateFiles;
import dev.weir.internal.checkpoint.TaskSnapshot;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The heap keyed state against a plain model: random updates of value, map and list states over
 * many keys; then a snapshot, serialised and restored three ways (from the file bytes split by key
 * group over two subtasks, from the file bytes with states declared after the restore, and from the
 * in-memory copy of local recovery, with states declared before or after, into new arrays or into
 * the arrays a failed attempt released) must give back exactly the model, and a restored backend
 * must not share mutable containers with the one it came from.
 */
class KeyedStateProperties {
    static final int GROUPS = 128;

    record Op(long key, int action, long a, long b) {}

    @Provide
    Arbitrary<List<Op>> ops() {
        Arbitrary<Op> op =
                Combinators.combine(
                                Arbitraries.longs().between(0, 300),
                                Arbitraries.integers().between(0, 5),
                                Arbitraries.longs(),
                                Arbitraries.longs().between(0, 5))
                        .as(Op::new);
        return op.list().ofMaxSize(2000);
    }

    /** The model: per key, a value, a map and a list (absent = null / empty). */
    static final class Model {
        final Map<Long, Long> values = new TreeMap<>();
        final Map<Long, Map<Long, Long>> maps = new TreeMap<>();
        final Map<Long, List<Long>> lists = new TreeMap<>();
    }

    static final class Handles {
        final HeapKeyedStateBackend backend = new HeapKeyedStateBackend(GROUPS);
        ValueState<Long> value;
        MapState<Long, Long> map;
        ListState<Long> list;

        Handles declare() {
            value = backend.valueState("value", Codecs.LONG);
            map = backend.mapState("map", Codecs.LONG, Codecs.LONG);
            list = backend.listState("list", Codecs.LONG);
            return this;
        }
    }

    static void apply(Op op, Handles h, Model m) {
        h.backend.setCurrentKey(op.key());
        switch (op.action()) {
            case 0 -> {
                h.value.update(op.a());
                m.values.put(op.key(), op.a());
            }
            case 1 -> {
                h.value.clear();
                m.values.remove(op.key());
            }
            case 2 -> {
                h.map.put(op.b(), op.a());
                m.maps.computeIfAbsent(op.key(), k -> new HashMap<>()).put(op.b(), op.a());
            }
            case 3 -> {
                h.map.remove(op.b());
                Map<Long, Long> map = m.maps.get(op.key());
                if (map != null) {
                    map.remove(op.b());
                }
            }
            case 4 -> {
                h.list.add(op.a());
                m.lists.computeIfAbsent(op.key(), k -> new ArrayList<>()).add(op.a());
            }
            default -> {
                h.list.clear();
                m.lists.remove(op.key());
            }
        }
    }

    /** The keys of {@code first..last} in {@code h} equal the model's. */
    static void assertHolds(Handles h, Model m, int first, int last) {
        for (long key = 0; key <= 300; key++) {
            int group = KeyGroups.keyGroupOf(key, GROUPS);
            if (group < first || group > last) {
                continue;
            }
            h.backend.setCurrentKey(key);
            assertThat(h.value.value()).as("value of key %d", key).isEqualTo(m.values.get(key));
            assertThat(h.map.entries())
                    .as("map of key %d", key)
                    .isEqualTo(m.maps.getOrDefault(key, Map.of()));
            assertThat(h.list.get())
                    .as("list of key %d", key)
                    .isEqualTo(m.lists.getOrDefault(key, List.of()));
        }
    }

    static RawKeyedState roundTrip(HeapKeyedStateBackend.KeyedCopy copy) {
        byte[] bytes =
                StateFiles.serialize(
                        new TaskSnapshot(
                                "t",
                                "",
                                Map.of(),
                                List.of(
                                        new TaskSnapshot.OperatorSnapshot(
                                                "op", 0, 1, null, copy, "heap"))));
        return RawKeyedState.of(
                StateFiles.parse(Path.of("state"), bytes).operators().get(0).keyed());
    }

    @Property(tries = 200)
    void snapshotsRestoreExactlyTheState(@ForAll("ops") List<Op> ops) {
        Handles original = new Handles().declare();
        Model model = new Model();
        for (Op op : ops) {
            apply(op, original, model);
        }
        assertHolds(original, model, 0, GROUPS - 1);
        HeapKeyedStateBackend.KeyedCopy copy = original.backend.copy();
        RawKeyedState raw = roundTrip(copy);

        // From the files, split over two subtasks by key group.
        Handles low = new Handles().declare();
        Handles high = new Handles().declare();
        low.backend.restore(raw, 0, 63);
        high.backend.restore(raw, 64, GROUPS - 1);
        assertHolds(low, model, 0, 63);
        assertHolds(high, model, 64, GROUPS - 1);
        assertThat(low.backend.size() + high.backend.size()).isEqualTo(original.backend.size());

        // From the files, states declared only after the restore.
        Handles late = new Handles();
        late.backend.restore(raw, 0, GROUPS - 1);
        late.declare();
        assertHolds(late, model, 0, GROUPS - 1);

        // Local recovery, from the in-memory copy.
        Handles local = new Handles().declare();
        assertThat(local.backend.restoreFrom(copy)).isTrue();
        assertHolds(local, model, 0, GROUPS - 1);

        // The restored state owns its containers: changing it changes neither the original nor
        // a second restore from the same copy.
        for (long key = 0; key <= 300; key++) {
            apply(new Op(key, 2, -1, 99), local, new Model());
            apply(new Op(key, 4, -1, 0), local, new Model());
        }
        assertHolds(original, model, 0, GROUPS - 1);
        Handles again = new Handles().declare();
        assertThat(again.backend.restoreFrom(copy)).isTrue();
        assertHolds(again, model, 0, GROUPS - 1);

        // Local recovery with the states declared only after the restore.
        Handles lateLocal = new Handles();
        assertThat(lateLocal.backend.restoreFrom(copy)).isTrue();
        lateLocal.declare();
        assertHolds(lateLocal, model, 0, GROUPS - 1);

        // Local recovery into the arrays a failed attempt released (it had more keys and other
        // values): nothing of the failed attempt shows through.
        HeapKeyedStateBackend.Spare spare = local.backend.release();
        assertThat(local.backend.size()).isZero();
        Handles reused = new Handles().declare();
        assertThat(reused.backend.restoreFrom(copy, spare)).isTrue();
        assertThat(reused.backend.size()).isEqualTo(original.backend.size());
        assertHolds(reused, model, 0, GROUPS - 1);
        for (Op op : ops) {
            apply(op, reused, new Model());
        }
        assertHolds(original, model, 0, GROUPS - 1);
    }
}
