package dev.weir.internal.state;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.api.codec.Codec;
import dev.weir.api.codec.Codecs;
import dev.weir.api.state.KeyGroups;
import dev.weir.api.state.ListState;
import dev.weir.api.state.MapState;
import dev.weir.api.state.ValueState;
import dev.weir.internal.io.ByteArrayDataOutput;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The bytes of a heap snapshot's keyed section, written out by hand from the format: each key's
 * group, its key by {@link Codecs#auto()}, then per state its length and bytes (-1 if absent),
 * entries in key-group order and, within a group, in the order keys first appeared. The snapshot
 * writes a {@link Codecs#LONG} value state on a path of its own and encodes entries in key order
 * before writing them in key-group order; either going wrong changes these bytes, and checkpoints
 * written before would no longer restore. Some values are long enough that the encoded entries
 * outgrow their first buffer; the bytes then restore every value.
 */
class KeyedStateFormatTest {
    static final int GROUPS = 128;

    record Entry(int index, Object key, Long count, String name, Long mapped, List<Long> listed) {}

    @Test
    void snapshotBytesFollowTheFormat() throws IOException {
        HeapKeyedStateBackend backend = new HeapKeyedStateBackend(GROUPS);
        ValueState<Long> count = backend.valueState("count", Codecs.LONG);
        ValueState<String> name = backend.valueState("name", Codecs.STRING);
        MapState<Long, Long> map = backend.mapState("map", Codecs.LONG, Codecs.LONG);
        ListState<Long> list = backend.listState("list", Codecs.LONG);
        Random random = new Random(42);
        List<Entry> entries = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            // Long keys mostly, some strings: the key codec is auto() for every key type.
            Object key = i % 11 == 0 ? "key-" + i : (Object) (random.nextLong() % 100_000);
            if (entries.stream().anyMatch(e -> e.key().equals(key))) {
                continue;
            }
            backend.setCurrentKey(key);
            Long c = i % 5 == 0 ? null : random.nextLong();
            // Some names long enough that the encoded entries outgrow their first buffer.
            String n = i % 3 == 0 ? "n".repeat(i % 13 == 0 ? 5_000 : 1) + i : null;
            Long m = i % 7 == 0 ? (long) i : null;
            List<Long> l = i % 4 == 0 ? List.of((long) i, -1L, (long) i * i) : null;
            if (c == null && n == null && m == null && l == null) {
                c = 0L; // a key is held once a state of it was written
            }
            if (c != null) {
                count.update(c);
            }
            if (n != null) {
                name.update(n);
            }
            if (m != null) {
                map.put(1L, m);
            }
            if (l != null) {
                for (Long element : l) {
                    list.add(element);
                }
            }
            entries.add(new Entry(entries.size(), key, c, n, m, l));
        }
        // A value written and then cleared is absent, whatever path held it.
        int kept = 0;
        while (entries.get(kept).count() == null || entries.get(kept).name() == null) {
            kept++;
        }
        backend.setCurrentKey(entries.get(kept).key());
        count.clear();
        Entry cleared = entries.get(kept);
        entries.set(
                kept,
                new Entry(
                        kept,
                        cleared.key(),
                        null,
                        cleared.name(),
                        cleared.mapped(),
                        cleared.listed()));
        // A key whose only value is cleared is gone; the last key takes its place.
        int gone = 0;
        while (entries.get(gone).count() == null
                || entries.get(gone).name() != null
                || entries.get(gone).mapped() != null
                || entries.get(gone).listed() != null) {
            gone++;
        }
        backend.setCurrentKey(entries.get(gone).key());
        count.clear();
        Entry last = entries.remove(entries.size() - 1);
        entries.set(
                gone,
                new Entry(
                        gone, last.key(), last.count(), last.name(), last.mapped(), last.listed()));
        assertThat(backend.size()).isEqualTo(entries.size());

        ByteArrayDataOutput actual = new ByteArrayDataOutput(1024);
        backend.copy().writeTo(actual);

        ByteArrayDataOutput expected = new ByteArrayDataOutput(1024);
        expected.writeInt(4);
        for (String[] d :
                new String[][] {
                    {"count", "0", Codecs.LONG.id(), ""},
                    {"name", "0", Codecs.STRING.id(), ""},
                    {"map", "1", Codecs.LONG.id(), Codecs.LONG.id()},
                    {"list", "2", Codecs.LONG.id(), ""}
                }) {
            expected.writeUTF(d[0]);
            expected.writeByte(Integer.parseInt(d[1]));
            expected.writeUTF(d[2]);
            expected.writeUTF(d[3]);
        }
        expected.writeInt(entries.size());
        ByteArrayDataOutput body = new ByteArrayDataOutput(1024);
        List<Entry> ordered = new ArrayList<>(entries);
        ordered.sort(
                Comparator.comparingInt((Entry e) -> KeyGroups.keyGroupOf(e.key(), GROUPS))
                        .thenComparingInt(Entry::index));
        for (Entry e : ordered) {
            body.writeInt(KeyGroups.keyGroupOf(e.key(), GROUPS));
            Codecs.auto().encode(e.key(), body);
            writeValue(body, Codecs.LONG, e.count());
            writeValue(body, Codecs.STRING, e.name());
            if (e.mapped() == null) {
                body.writeInt(-1);
            } else {
                body.writeInt(4 + 8 + 8);
                body.writeInt(1);
                body.writeLong(1L);
                body.writeLong(e.mapped());
            }
            if (e.listed() == null) {
                body.writeInt(-1);
            } else {
                body.writeInt(4 + 8 * e.listed().size());
                body.writeInt(e.listed().size());
                for (long element : e.listed()) {
                    body.writeLong(element);
                }
            }
        }
        expected.writeInt(body.size());
        expected.write(body.buffer(), 0, body.size());

        assertThat(actual.toByteArray()).isEqualTo(expected.toByteArray());
        // And back: a restore from these bytes gives every value again.
        HeapKeyedStateBackend restored = new HeapKeyedStateBackend(GROUPS);
        restored.restore(KeyedStateProperties.roundTrip(backend.copy()), 0, GROUPS - 1);
        ValueState<Long> count2 = restored.valueState("count", Codecs.LONG);
        ValueState<String> name2 = restored.valueState("name", Codecs.STRING);
        ListState<Long> list2 = restored.listState("list", Codecs.LONG);
        for (Entry e : entries) {
            restored.setCurrentKey(e.key());
            assertThat(count2.value()).isEqualTo(e.count());
            assertThat(name2.value()).isEqualTo(e.name());
            assertThat(list2.get()).isEqualTo(e.listed() == null ? List.of() : e.listed());
        }
    }

    private static <T> void writeValue(ByteArrayDataOutput out, Codec<T> codec, T value)
            throws IOException {
        if (value == null) {
            out.writeInt(-1);
            return;
        }
        ByteArrayDataOutput bytes = new ByteArrayDataOutput(16);
        codec.encode(value, bytes);
        out.writeInt(bytes.size());
        out.write(bytes.buffer(), 0, bytes.size());
    }
}
