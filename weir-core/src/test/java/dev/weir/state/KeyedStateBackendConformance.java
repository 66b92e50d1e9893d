package dev.weir.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.api.UnrecoverableException;
import dev.weir.api.codec.Codec;
import dev.weir.api.codec.Codecs;
import dev.weir.api.state.KeyGroups;
import dev.weir.api.state.KeyedSection;
import dev.weir.api.state.KeyedStateBackend;
import dev.weir.api.state.KeyedStateBackendFactory;
import dev.weir.api.state.ListState;
import dev.weir.api.state.MapState;
import dev.weir.api.state.ValueState;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The contract every {@link KeyedStateBackend} passes (SPI conformance suite): state semantics per
 * key, snapshots that later writes do not change, restores of any key-group range (rescaling both
 * ways), codec identity checked on restore, local recovery, and visiting every key. A backend's own
 * test is a subclass naming its factory.
 */
public abstract class KeyedStateBackendConformance {
    /** The backend under test. */
    protected abstract KeyedStateBackendFactory factory();

    static final int GROUPS = 128;

    /** A backend of subtask {@code subtask} of {@code parallelism}. */
    protected KeyedStateBackend backend(int subtask, int parallelism, KeyedStateBackend previous) {
        return factory()
                .create(
                        new KeyedStateBackendFactory.Context() {
                            @Override
                            public String stepName() {
                                return "step";
                            }

                            @Override
                            public int subtaskIndex() {
                                return subtask;
                            }

                            @Override
                            public int parallelism() {
                                return parallelism;
                            }

                            @Override
                            public int maxParallelism() {
                                return GROUPS;
                            }

                            @Override
                            public int firstKeyGroup() {
                                return KeyGroups.rangeStart(subtask, GROUPS, parallelism);
                            }

                            @Override
                            public int lastKeyGroup() {
                                return KeyGroups.rangeEnd(subtask, GROUPS, parallelism);
                            }

                            @Override
                            public KeyedStateBackend previousAttempt() {
                                return previous;
                            }
                        });
    }

    /** The handles of one backend: a value, a map and a list state. */
    static final class Handles {
        final KeyedStateBackend backend;
        final ValueState<Long> value;
        final MapState<String, Long> map;
        final ListState<String> list;

        Handles(KeyedStateBackend backend) {
            this(backend, Codecs.LONG);
        }

        Handles(KeyedStateBackend backend, Codec<Long> valueCodec) {
            this.backend = backend;
            this.value = backend.valueState("value", valueCodec);
            this.map = backend.mapState("map", Codecs.STRING, Codecs.LONG);
            this.list = backend.listState("list", Codecs.STRING);
        }
    }

    /** Writes {@code snapshot} as a checkpoint would and hands it back as a section. */
    KeyedSection section(KeyedStateBackend.KeyedSnapshot snapshot) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            snapshot.writeTo(out);
        }
        byte[] buffer = bytes.toByteArray();
        return new KeyedSection(
                factory().id(), snapshot.keyCount(), buffer, 0, buffer.length, List.of());
    }

    @Test
    void eachKeySeesOnlyItsOwnState() {
        Handles h = new Handles(backend(0, 1, null));
        h.backend.setCurrentKey("a");
        h.value.update(1L);
        h.map.put("x", 10L);
        h.list.add("first");
        h.backend.setCurrentKey("b");
        assertThat(h.value.value()).isNull();
        assertThat(h.map.entries()).isEmpty();
        assertThat(h.list.get()).isEmpty();
        h.value.update(2L);
        h.backend.setCurrentKey("a");
        assertThat(h.value.value()).isEqualTo(1L);
        assertThat(h.map.get("x")).isEqualTo(10L);
        assertThat(h.list.get()).containsExactly("first");
        h.value.clear();
        assertThat(h.value.value()).isNull();
        assertThat(h.backend.keyCount()).isEqualTo(2);
        assertThat(h.backend.currentKey()).isEqualTo("a");
    }

    @Test
    void theCurrentKeyIsTheLastOneSetWhetherKnownNewOrNeverWritten() {
        Handles h = new Handles(backend(0, 1, null));
        h.backend.setCurrentKey("a");
        assertThat(h.backend.currentKey()).isEqualTo("a");
        h.value.update(1L);
        h.backend.setCurrentKey("b"); // new, never written
        assertThat(h.backend.currentKey()).isEqualTo("b");
        h.backend.setCurrentKey("a"); // known
        assertThat(h.backend.currentKey()).isEqualTo("a");
        h.backend.setCurrentKey("c"); // new again: a write must go to c, not to an older key
        assertThat(h.backend.currentKey()).isEqualTo("c");
        h.value.update(3L);
        h.backend.setCurrentKey(new String("a")); // an equal key object, not the same one
        assertThat(h.value.value()).isEqualTo(1L);
        h.backend.setCurrentKey("c");
        assertThat(h.value.value()).isEqualTo(3L);
        h.backend.setCurrentKey("b");
        assertThat(h.value.value()).isNull();
        assertThat(h.backend.keyCount()).isEqualTo(2);
    }

    @Test
    void aSnapshotIsNotChangedByLaterWrites() throws Exception {
        Handles h = new Handles(backend(0, 1, null));
        for (long k = 0; k < 100; k++) {
            h.backend.setCurrentKey(k);
            h.value.update(k);
            h.list.add("v" + k);
        }
        KeyedStateBackend.KeyedSnapshot snapshot = h.backend.snapshot();
        for (long k = 0; k < 150; k++) {
            h.backend.setCurrentKey(k);
            h.value.update(-1L);
            h.list.add("later");
        }
        Handles restored = new Handles(backend(0, 1, null));
        restored.backend.restore(section(snapshot), 0, GROUPS - 1);
        restored.backend.restoreFinished();
        assertThat(restored.backend.keyCount()).isEqualTo(100);
        for (long k = 0; k < 100; k++) {
            restored.backend.setCurrentKey(k);
            assertThat(restored.value.value()).isEqualTo(k);
            assertThat(restored.list.get()).containsExactly("v" + k);
        }
    }

    /** The model: key → value. */
    static Map<Long, Long> fill(Handles h, Random random, int keys) {
        Map<Long, Long> model = new HashMap<>();
        for (int i = 0; i < keys * 3; i++) {
            long key = random.nextInt(keys);
            long value = random.nextLong();
            h.backend.setCurrentKey(key);
            h.value.update(value);
            h.map.put("k" + (value & 7), value);
            model.put(key, value);
        }
        return model;
    }

    @Property(tries = 30)
    void restoresAnyKeyGroupRangeSoAJobRescalesBothWays(
            @ForAll @IntRange(min = 1, max = 4) int oldParallelism,
            @ForAll @IntRange(min = 1, max = 4) int newParallelism,
            @ForAll long seed)
            throws Exception {
        Random random = new Random(seed);
        Map<Long, Long> model = new HashMap<>();
        List<KeyedSection> sections = new ArrayList<>();
        for (int old = 0; old < oldParallelism; old++) {
            // Each old subtask holds only the keys of its own key groups, as in a real job.
            Handles h = new Handles(backend(old, oldParallelism, null));
            for (int i = 0; i < 900; i++) {
                long key = random.nextInt(300);
                int group = KeyGroups.keyGroupOf(key, GROUPS);
                if (KeyGroups.subtaskOf(group, GROUPS, oldParallelism) != old) {
                    continue;
                }
                long value = random.nextLong();
                h.backend.setCurrentKey(key);
                h.value.update(value);
                h.map.put("k" + (value & 7), value);
                model.put(key, value);
            }
            sections.add(section(h.backend.snapshot()));
        }
        int found = 0;
        for (int now = 0; now < newParallelism; now++) {
            int first = KeyGroups.rangeStart(now, GROUPS, newParallelism);
            int last = KeyGroups.rangeEnd(now, GROUPS, newParallelism);
            Handles h = new Handles(backend(now, newParallelism, null));
            for (KeyedSection section : sections) {
                h.backend.restore(section, first, last);
            }
            h.backend.restoreFinished();
            List<Object> keys = new ArrayList<>();
            h.backend.forEachKey(keys::add);
            for (Object key : keys) {
                h.backend.setCurrentKey(key);
                Long value = h.value.value();
                assertThat(KeyGroups.keyGroupOf(key, GROUPS)).isBetween(first, last);
                assertThat(value).as("key %s", key).isEqualTo(model.get(key));
                assertThat(h.map.get("k" + (value & 7))).isEqualTo(value);
                found++;
            }
        }
        assertThat(found).isEqualTo(model.size());
    }

    @Test
    void aStateDeclaredLaterIsRestoredWhenDeclared() throws Exception {
        Handles h = new Handles(backend(0, 1, null));
        h.backend.setCurrentKey(7L);
        h.value.update(70L);
        KeyedSection section = section(h.backend.snapshot());

        KeyedStateBackend restored = backend(0, 1, null);
        restored.restore(section, 0, GROUPS - 1);
        restored.restoreFinished();
        ValueState<Long> value = restored.valueState("value", Codecs.LONG);
        restored.setCurrentKey(7L);
        assertThat(value.value()).isEqualTo(70L);
    }

    @Test
    void aStateDeclaredWithACodecThatCannotReadItIsRefusedNamingBothCodecs() throws Exception {
        Handles h = new Handles(backend(0, 1, null));
        h.backend.setCurrentKey(1L);
        h.value.update(5L);
        KeyedSection section = section(h.backend.snapshot());
        @SuppressWarnings({"unchecked", "rawtypes"})
        Codec<Long> auto = (Codec) Codecs.auto();

        KeyedStateBackend early = backend(0, 1, null);
        early.valueState("value", auto);
        assertThatThrownBy(() -> early.restore(section, 0, GROUPS - 1))
                .isInstanceOf(UnrecoverableException.class)
                .hasMessageContaining("state 'value'")
                .hasMessageContaining("weir.long")
                .hasMessageContaining("weir.auto");

        KeyedStateBackend late = backend(0, 1, null);
        late.restore(section, 0, GROUPS - 1);
        assertThatThrownBy(() -> late.valueState("value", auto))
                .isInstanceOf(UnrecoverableException.class)
                .hasMessageContaining("weir.long");
    }

    @Test
    void localRecoveryRestoresThisSubtasksOwnSnapshot() throws Exception {
        KeyedStateBackend first = backend(0, 1, null);
        Handles h = new Handles(first);
        Map<Long, Long> model = fill(h, new Random(3), 500);
        KeyedStateBackend.KeyedSnapshot snapshot = first.snapshot();
        first.close(true); // a failed attempt hands its memory on

        KeyedStateBackend second = backend(0, 1, first);
        Handles restored = new Handles(second);
        assertThat(second.restoreLocal(snapshot)).isTrue();
        second.restoreFinished();
        for (Map.Entry<Long, Long> entry : model.entrySet()) {
            second.setCurrentKey(entry.getKey());
            assertThat(restored.value.value()).isEqualTo(entry.getValue());
        }
        assertThat(second.keyCount()).isEqualTo(model.size());
    }

    @Test
    void forEachKeyVisitsEveryKeyWithItsStateInScope() throws Exception {
        Handles h = new Handles(backend(0, 1, null));
        for (long k = 0; k < 50; k++) {
            h.backend.setCurrentKey(k);
            h.value.update(k * 2);
        }
        Map<Object, Long> seen = new HashMap<>();
        h.backend.forEachKey(key -> seen.put(key, h.value.value()));
        assertThat(seen).hasSize(50);
        seen.forEach((key, value) -> assertThat(value).isEqualTo((Long) key * 2));
    }

    @Test
    void aKeyWhoseStateIsAllClearedOrEmptiedIsNoLongerHeld() throws Exception {
        Handles h = new Handles(backend(0, 1, null));
        for (long k = 0; k < 10; k++) {
            h.backend.setCurrentKey(k);
            h.value.update(k);
            h.map.put("a", k);
            h.list.add("x" + k);
        }
        h.backend.setCurrentKey(3L);
        h.value.clear();
        h.map.remove("a");
        assertThat(h.backend.keyCount()).isEqualTo(10); // its list still holds an element
        h.list.update(List.of());
        assertThat(h.backend.keyCount()).isEqualTo(9);
        assertThat(h.backend.currentKey()).isEqualTo(3L);
        assertThat(h.value.value()).isNull();
        assertThat(h.map.entries()).isEmpty();
        assertThat(h.list.get()).isEmpty();

        Set<Object> visited = new HashSet<>();
        h.backend.forEachKey(visited::add);
        assertThat(visited).hasSize(9).doesNotContain(3L);
        KeyedStateBackend.KeyedSnapshot snapshot = h.backend.snapshot();
        assertThat(snapshot.keyCount()).isEqualTo(9);
        Handles restored = new Handles(backend(0, 1, null));
        restored.backend.restore(section(snapshot), 0, GROUPS - 1);
        restored.backend.restoreFinished();
        assertThat(restored.backend.keyCount()).isEqualTo(9);
        for (long k = 0; k < 10; k++) {
            restored.backend.setCurrentKey(k);
            assertThat(restored.value.value()).isEqualTo(k == 3 ? null : k);
        }

        h.backend.setCurrentKey(3L);
        h.map.put("b", 33L); // written again, the key is held again
        assertThat(h.backend.keyCount()).isEqualTo(10);
        h.backend.setCurrentKey(4L);
        h.backend.setCurrentKey(3L);
        assertThat(h.map.get("b")).isEqualTo(33L);
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void aStateDeclaredLateKeepsItsValuesThroughSnapshotsTakenBeforeItsDeclaration(boolean local)
            throws Exception {
        KeyedStateBackend first = backend(0, 1, null);
        Handles h = new Handles(first);
        ValueState<Long> late = first.valueState("late", Codecs.LONG);
        for (long k = 0; k < 100; k++) {
            h.backend.setCurrentKey(k);
            h.value.update(k);
            late.update(-k);
        }
        Handles restored = new Handles(backend(0, 1, null));
        restored.backend.restore(section(first.snapshot()), 0, GROUPS - 1);
        restored.backend.restoreFinished();
        for (long k = 0; k < 50; k++) { // left with only the undeclared state: still held
            restored.backend.setCurrentKey(k);
            restored.value.clear();
        }
        restored.backend.setCurrentKey(200L);
        restored.backend.forEachKey(key -> {});
        assertThat(restored.backend.keyCount()).isEqualTo(100);

        // A checkpoint before the function declares the state, and a restart from it.
        KeyedStateBackend.KeyedSnapshot before = restored.backend.snapshot();
        restored.backend.close(true);
        Handles again = new Handles(backend(0, 1, local ? restored.backend : null));
        if (!local || !again.backend.restoreLocal(before)) {
            again.backend.restore(section(before), 0, GROUPS - 1);
        }
        again.backend.restoreFinished();
        assertThat(again.backend.keyCount()).isEqualTo(100);

        again.backend.setCurrentKey(7L); // current, and its state declared now
        ValueState<Long> declared = again.backend.valueState("late", Codecs.LONG);
        assertThat(declared.value()).isEqualTo(-7L);
        again.value.update(77L);
        assertThat(again.backend.keyCount()).isEqualTo(100);
        List<Object> visited = new ArrayList<>();
        again.backend.forEachKey(visited::add);
        assertThat(visited).hasSize(100).doesNotHaveDuplicates();
        for (long k = 0; k < 100; k++) {
            again.backend.setCurrentKey(k);
            assertThat(declared.value()).isEqualTo(-k);
            Long expected = k == 7 ? Long.valueOf(77) : k < 50 ? null : Long.valueOf(k);
            assertThat(again.value.value()).isEqualTo(expected);
        }
        for (long k = 50; k < 100; k++) { // now declared: clearing both drops the key
            again.backend.setCurrentKey(k);
            again.value.clear();
            declared.clear();
        }
        assertThat(again.backend.keyCount()).isEqualTo(50);
    }

    @Test
    void aPrefetchChangesNothingWhateverItIsGiven() throws Exception {
        Handles h = new Handles(backend(0, 1, null));
        for (long k = 0; k < 70_000; k++) { // enough keys for a backend to act on the hint
            h.backend.setCurrentKey(k);
            h.value.update(k * 3);
        }
        h.backend.setCurrentKey(5L);
        Object[] run = {1L, 2L, "x", null, 70_001L, Long.MIN_VALUE, 3, 4L};
        h.backend.prefetch(run, 0, run.length, 1);
        h.backend.prefetch(run, 1, run.length, 2);
        h.backend.prefetch(run, 0, run.length, 0); // no step: ignored, must return
        h.backend.prefetch(run, 3, 3, 1);
        assertThat(h.backend.currentKey()).isEqualTo(5L);
        assertThat(h.value.value()).isEqualTo(15L);
        assertThat(h.backend.keyCount()).isEqualTo(70_000);
        h.backend.setCurrentKey(69_999L);
        assertThat(h.value.value()).isEqualTo(69_999L * 3);
    }

    @Test
    void aWalkThatClearsKeysVisitsEveryKeyOnceAndThenTheClearedOnesAreGone() throws Exception {
        Handles h = new Handles(backend(0, 1, null));
        for (long k = 0; k < 100; k++) {
            h.backend.setCurrentKey(k);
            h.value.update(k);
        }
        List<Object> visited = new ArrayList<>();
        h.backend.forEachKey(
                key -> {
                    visited.add(key);
                    assertThat(h.value.value()).isEqualTo(key);
                    if ((Long) key % 3 == 0) {
                        h.value.clear();
                    }
                });
        assertThat(visited).hasSize(100).doesNotHaveDuplicates();
        assertThat(h.backend.keyCount()).isEqualTo(66);
        for (long k = 0; k < 100; k++) {
            h.backend.setCurrentKey(k);
            assertThat(h.value.value()).isEqualTo(k % 3 == 0 ? null : k);
        }
    }

    /**
     * Random writes, clears and empties over keys that come and go, snapshots restored into new
     * backends and walks that clear state, against a model: what each key reads, which keys are
     * counted and visited. Keys are longs, strings, or longs until strings join them halfway (a
     * backend may hold longs in a table of their own).
     */
    @Property(tries = 60)
    void keysThatComeAndGoReadAsTheModelSaysThroughSnapshotsAndWalks(
            @ForAll long seed,
            @ForAll @IntRange(min = 5, max = 300) int keySpace,
            @ForAll @IntRange(min = 0, max = 2) int keyKind)
            throws Exception {
        Random random = new Random(seed);
        Handles h = new Handles(backend(0, 1, null));
        Model model = new Model();
        Map<Object, Long> values = model.values();
        Map<Object, Map<String, Long>> maps = model.maps();
        Map<Object, List<String>> lists = model.lists();
        for (int step = 0; step < 4_000; step++) {
            Object key = keyOf(random.nextInt(keySpace), keyKind, step);
            h.backend.setCurrentKey(key);
            int op = random.nextInt(100);
            if (op < 25) {
                long value = random.nextLong();
                h.value.update(value);
                values.put(key, value);
            } else if (op < 40) {
                h.value.clear();
                values.remove(key);
            } else if (op < 55) {
                String userKey = "m" + random.nextInt(3);
                h.map.put(userKey, (long) step);
                maps.computeIfAbsent(key, k -> new HashMap<>()).put(userKey, (long) step);
            } else if (op < 70) {
                String userKey = "m" + random.nextInt(3);
                h.map.remove(userKey);
                Map<String, Long> map = maps.get(key);
                if (map != null) {
                    map.remove(userKey);
                    if (map.isEmpty()) {
                        maps.remove(key);
                    }
                }
            } else if (op < 80) {
                h.list.add("l" + step);
                lists.computeIfAbsent(key, k -> new ArrayList<>()).add("l" + step);
            } else if (op < 88) {
                if (random.nextBoolean()) {
                    h.list.clear();
                } else {
                    h.list.update(List.of());
                }
                lists.remove(key);
            } else if (op < 90) {
                if (keyKind != 2) { // a restored backend refuses a key type it did not hold
                    h = new Handles(roundTrip(h.backend));
                }
            } else if (op < 91) {
                long modulus = 2 + random.nextInt(5);
                Handles walked = h;
                walked.backend.forEachKey(
                        visited -> {
                            if (number(visited) % modulus == 0) {
                                walked.value.clear();
                            }
                        });
                values.keySet().removeIf(k -> number(k) % modulus == 0);
            }
        }
        assertHolds(h, model, keyKind);
        assertHolds(new Handles(roundTrip(h.backend)), model, keyKind);
    }

    /** What a backend should hold: each key's value, map and list. */
    record Model(
            Map<Object, Long> values,
            Map<Object, Map<String, Long>> maps,
            Map<Object, List<String>> lists) {
        Model() {
            this(new HashMap<>(), new HashMap<>(), new HashMap<>());
        }

        /** A deep copy: the model at this moment. */
        Model copy() {
            Map<Object, Map<String, Long>> m = new HashMap<>();
            maps.forEach((k, v) -> m.put(k, new HashMap<>(v)));
            Map<Object, List<String>> l = new HashMap<>();
            lists.forEach((k, v) -> l.put(k, new ArrayList<>(v)));
            return new Model(new HashMap<>(values), m, l);
        }

        Set<Object> held() {
            Set<Object> held = new HashSet<>(values.keySet());
            held.addAll(maps.keySet());
            held.addAll(lists.keySet());
            return held;
        }
    }

    /**
     * Snapshots are taken along the way and kept while the state goes on changing, as a checkpoint
     * is written while the task runs: each, written out at the end, holds its own moment. Some are
     * restored locally (the snapshot object itself, which a later local restore uses again) and the
     * state goes on from there, or goes on from a restore of its files. Views asked for in a step
     * see that step's later changes.
     */
    @Property(tries = 40)
    void snapshotsKeptWhileTheStateGoesOnHoldTheirMoment(
            @ForAll long seed,
            @ForAll @IntRange(min = 3, max = 200) int keySpace,
            @ForAll @IntRange(min = 0, max = 1) int keyKind)
            throws Exception {
        Random random = new Random(seed);
        Handles h = new Handles(backend(0, 1, null));
        Model model = new Model();
        List<KeyedStateBackend.KeyedSnapshot> snapshots = new ArrayList<>();
        List<Model> moments = new ArrayList<>();
        for (int step = 0; step < 3_000; step++) {
            Object key = keyOf(random.nextInt(keySpace), keyKind, 0);
            h.backend.setCurrentKey(key);
            int op = random.nextInt(100);
            if (op < 15) {
                long value = random.nextLong();
                h.value.update(value);
                model.values().put(key, value);
            } else if (op < 20) {
                h.value.clear();
                model.values().remove(key);
            } else if (op < 40) {
                String userKey = "m" + random.nextInt(4);
                Map<String, Long> view = h.map.entries();
                h.map.put(userKey, (long) step);
                model.maps().computeIfAbsent(key, k -> new HashMap<>()).put(userKey, (long) step);
                if (!view.isEmpty()) { // an empty map's view is no map yet
                    assertThat(view)
                            .as("a view asked for before a put")
                            .containsEntry(userKey, (long) step);
                }
            } else if (op < 52) {
                String userKey = "m" + random.nextInt(4);
                h.map.remove(userKey);
                Map<String, Long> map = model.maps().get(key);
                if (map != null) {
                    map.remove(userKey);
                    if (map.isEmpty()) {
                        model.maps().remove(key);
                    }
                }
            } else if (op < 72) {
                List<String> view = h.list.get();
                h.list.add("l" + step);
                model.lists().computeIfAbsent(key, k -> new ArrayList<>()).add("l" + step);
                if (!view.isEmpty()) { // an empty list's view is no list yet
                    assertThat(view).as("a view asked for before an add").endsWith("l" + step);
                }
            } else if (op < 78) {
                List<String> list = new ArrayList<>(h.list.get());
                if (!list.isEmpty()) {
                    list.remove(random.nextInt(list.size()));
                }
                list.add("u" + step);
                h.list.update(list);
                model.lists().put(key, list);
            } else if (op < 82) {
                h.list.clear();
                model.lists().remove(key);
            } else if (op < 92) {
                snapshots.add(h.backend.snapshot());
                moments.add(model.copy());
            } else if (op < 94 && !snapshots.isEmpty()) {
                // Local recovery from a kept snapshot, then on from there.
                int back = random.nextInt(snapshots.size());
                h.backend.close(true);
                KeyedStateBackend next = backend(0, 1, h.backend);
                Handles restored = new Handles(next);
                assertThat(next.restoreLocal(snapshots.get(back))).isTrue();
                next.restoreFinished();
                h = restored;
                model = moments.get(back).copy();
                assertModel(h, model);
            } else if (op < 96) {
                h = new Handles(roundTrip(h.backend)); // on from the files: decoded state
            }
        }
        assertModel(h, model);
        for (int i = 0; i < snapshots.size(); i++) {
            KeyedStateBackend fresh = backend(0, 1, null);
            Handles restored = new Handles(fresh);
            fresh.restore(section(snapshots.get(i)), 0, GROUPS - 1);
            fresh.restoreFinished();
            assertModel(restored, moments.get(i));
        }
    }

    private static void assertModel(Handles h, Model model) {
        Set<Object> held = model.held();
        assertThat(h.backend.keyCount()).isEqualTo(held.size());
        for (Object key : held) {
            assertKey(h, model, key);
        }
    }

    /** What {@code key} reads: the model's value, map and list of it, or none. */
    private static void assertKey(Handles h, Model model, Object key) {
        h.backend.setCurrentKey(key);
        assertThat(h.value.value()).as("value of %s", key).isEqualTo(model.values().get(key));
        assertThat(h.map.entries())
                .as("map of %s", key)
                .isEqualTo(model.maps().getOrDefault(key, Map.of()));
        assertThat(h.list.get())
                .as("list of %s", key)
                .isEqualTo(model.lists().getOrDefault(key, List.of()));
    }

    /**
     * Key {@code n} of the kind: 0 longs, 1 strings, 2 longs and, after step 2,000, odd strings.
     */
    private static Object keyOf(long n, int keyKind, int step) {
        boolean string = keyKind == 1 || (keyKind == 2 && step >= 2_000 && n % 2 == 1);
        return string ? "s" + n : (Object) n;
    }

    private static long number(Object key) {
        return key instanceof String text ? Long.parseLong(text.substring(1)) : (Long) key;
    }

    /** A new backend restored from a snapshot of {@code backend}. */
    private KeyedStateBackend roundTrip(KeyedStateBackend backend) throws Exception {
        KeyedSection section = section(backend.snapshot());
        KeyedStateBackend restored = backend(0, 1, null);
        restored.restore(section, 0, GROUPS - 1);
        restored.restoreFinished();
        return restored;
    }

    /** The model's keys are counted and visited, and every key of the space reads as it says. */
    private static void assertHolds(Handles h, Model model, int keyKind) throws Exception {
        Set<Object> held = model.held();
        assertThat(h.backend.keyCount()).isEqualTo(held.size());
        Set<Object> visited = new HashSet<>();
        h.backend.forEachKey(visited::add);
        assertThat(visited).isEqualTo(held);
        for (long n = 0; n < 300; n++) {
            for (Object key : List.of(keyOf(n, keyKind, 0), keyOf(n, keyKind, 4_000))) {
                assertKey(h, model, key);
            }
        }
    }
}
