package dev.weir.internal.state;

import dev.weir.api.codec.Codecs;
import dev.weir.api.state.KeyedSection;
import dev.weir.internal.io.ByteArrayDataInput;
import dev.weir.internal.state.HeapKeyedStateBackend.Kind;
import dev.weir.internal.state.HeapKeyedStateBackend.RawEntry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Keyed state read from a checkpoint, still encoded: a view of the state file's bytes with the
 * start of each key group's entries, so a subtask decodes only its own key groups, straight into
 * its state, without an object per entry in between.
 *
 * <p>Entry layout (written by {@code KeyedCopy.writeTo}, sorted by key group): key group (int), key
 * ({@link Codecs#auto()}), then per state a length (int, -1 = absent) and that many bytes.
 */
public final class RawKeyedState {
    /** Sees one entry; value {@code s} is {@code buffer[offsets[s] .. + lengths[s])}. */
    @FunctionalInterface
    public interface EntryVisitor {
        void visit(int keyGroup, Object key, byte[] buffer, int[] offsets, int[] lengths);
    }

    private final List<String> names;
    private final List<Kind> kinds;
    private final List<String> codecIds;
    private final List<String> valueCodecIds;
    private final byte[] buffer;
    private final int start;
    private final int end;
    private final int entryCount;
    private Index index;

    /** Where each key group's entries start, and how many there are. */
    private record Index(int[] groups, int[] starts, int[] counts) {}

    private RawKeyedState(
            List<String> names,
            List<Kind> kinds,
            List<String> codecIds,
            List<String> valueCodecIds,
            byte[] buffer,
            int start,
            int end,
            int entryCount,
            Index index) {
        this.names = List.copyOf(names);
        this.kinds = List.copyOf(kinds);
        this.codecIds = codecIds == null ? null : List.copyOf(codecIds);
        this.valueCodecIds = valueCodecIds == null ? null : List.copyOf(valueCodecIds);
        this.buffer = buffer;
        this.start = start;
        this.end = end;
        this.entryCount = entryCount;
        this.index = index;
    }

    /** The backend id of heap sections of version-2 state files (no codec ids recorded). */
    public static final String LEGACY_ID = "heap.v2";

    /**
     * The heap backend's section {@code section} (written by {@code KeyedCopy.writeTo}): the
     * states' names, kinds and codec ids, then the entries, which are skipped and indexed only when
     * a restore decodes them. Kept in the section's memo, so subtasks restoring from it in parallel
     * share one index.
     */
    public static RawKeyedState of(KeyedSection section) {
        return section.memo(RawKeyedState::parse);
    }

    private static RawKeyedState parse(KeyedSection section) {
        boolean legacy = section.backendId().equals(LEGACY_ID);
        ByteArrayDataInput in =
                new ByteArrayDataInput()
                        .reset(section.buffer(), section.offset(), section.length());
        try {
            return readHeaderAndEntries(in, section.buffer(), !legacy);
        } catch (IOException e) {
            throw new IllegalStateException(
                    "a keyed state section of the checkpoint is malformed although its checksum"
                            + " matched ("
                            + e.getMessage()
                            + "); restore an older checkpoint explicitly",
                    e);
        }
    }

    private static RawKeyedState readHeaderAndEntries(
            ByteArrayDataInput in, byte[] buffer, boolean withCodecIds) throws IOException {
        int stateCount = in.readInt();
        if (stateCount < 0 || stateCount > 65_536) {
            throw new IOException("impossible state count " + stateCount);
        }
        List<String> names = new ArrayList<>();
        List<Kind> kinds = new ArrayList<>();
        List<String> codecIds = withCodecIds ? new ArrayList<>() : null;
        List<String> valueCodecIds = withCodecIds ? new ArrayList<>() : null;
        for (int i = 0; i < stateCount; i++) {
            names.add(in.readUTF());
            int kind = in.readByte();
            if (kind < 0 || kind >= Kind.values().length) {
                throw new IOException("unknown state kind " + kind);
            }
            kinds.add(Kind.values()[kind]);
            if (withCodecIds) {
                codecIds.add(in.readUTF());
                valueCodecIds.add(in.readUTF());
            }
        }
        return read(in, buffer, names, kinds, codecIds, valueCodecIds, true);
    }

    /**
     * Reads the section of entries at {@code in}'s position and leaves {@code in} after it. With
     * {@code sized} (format version 2) the section's length precedes it and it is skipped in one
     * step, its key groups indexed only if a restore decodes it; otherwise it is scanned now. The
     * codec ids are null for files written before version 3, which did not record them.
     */
    public static RawKeyedState read(
            ByteArrayDataInput in,
            byte[] buffer,
            List<String> names,
            List<Kind> kinds,
            List<String> codecIds,
            List<String> valueCodecIds,
            boolean sized)
            throws IOException {
        int count = in.readInt();
        if (count < 0) {
            throw new IOException("impossible entry count " + count);
        }
        if (sized) {
            int length = in.readInt();
            int from = in.position();
            if (length < 0 || in.skipBytes(length) != length) {
                throw new java.io.EOFException("the keyed state section ends early");
            }
            return new RawKeyedState(
                    names,
                    kinds,
                    codecIds,
                    valueCodecIds,
                    buffer,
                    from,
                    from + length,
                    count,
                    null);
        }
        int from = in.position();
        Index index = scan(in, names.size(), count);
        return new RawKeyedState(
                names, kinds, codecIds, valueCodecIds, buffer, from, in.position(), count, index);
    }

    /** Walks {@code count} entries from {@code in}'s position, indexing their key groups. */
    private static Index scan(ByteArrayDataInput in, int width, int count) throws IOException {
        int[] groups = new int[16];
        int[] starts = new int[16];
        int[] counts = new int[16];
        int distinct = 0;
        int last = -1;
        for (int i = 0; i < count; i++) {
            int at = in.position();
            int group = in.readInt();
            if (group != last) {
                if (group < last) {
                    throw new IOException(
                            "key groups out of order (" + group + " after " + last + ")");
                }
                if (distinct == groups.length) {
                    groups = Arrays.copyOf(groups, distinct * 2);
                    starts = Arrays.copyOf(starts, distinct * 2);
                    counts = Arrays.copyOf(counts, distinct * 2);
                }
                groups[distinct] = group;
                starts[distinct] = at;
                distinct++;
                last = group;
            }
            counts[distinct - 1]++;
            Codecs.auto().decode(in);
            for (int s = 0; s < width; s++) {
                int length = in.readInt();
                if (length == -1) {
                    continue;
                }
                if (length < 0 || length > Codecs.MAX_ARRAY_BYTES) {
                    throw new IOException("impossible length " + length);
                }
                if (in.skipBytes(length) != length) {
                    throw new java.io.EOFException("state value ends early");
                }
            }
        }
        return new Index(
                Arrays.copyOf(groups, distinct),
                Arrays.copyOf(starts, distinct),
                Arrays.copyOf(counts, distinct));
    }

    /** The key-group index, built on first use (subtasks restoring in parallel may ask). */
    private synchronized Index index() {
        if (index == null) {
            ByteArrayDataInput in = new ByteArrayDataInput().reset(buffer, start, end - start);
            try {
                index = scan(in, names.size(), entryCount);
            } catch (IOException e) {
                throw new IllegalStateException(
                        "a keyed state section of the checkpoint is malformed although its"
                                + " checksum matched ("
                                + e.getMessage()
                                + "); restore an older checkpoint explicitly",
                        e);
            }
            if (in.position() != end) {
                throw new IllegalStateException(
                        "a keyed state section of the checkpoint has trailing bytes");
            }
        }
        return index;
    }

    /** The declared state names when the snapshot was taken. */
    public List<String> names() {
        return names;
    }

    /** Their kinds. */
    public List<Kind> kinds() {
        return kinds;
    }

    /** The {@code Codec.id()} each state was written with, or null if the file predates them. */
    public List<String> codecIds() {
        return codecIds;
    }

    /** For map states the value codec's id, else empty; null if the file predates them. */
    public List<String> valueCodecIds() {
        return valueCodecIds;
    }

    /** Number of keys. */
    public int entryCount() {
        return entryCount;
    }

    /** Number of keys whose key group is in {@code first..last}. */
    public int entryCount(int first, int last) {
        Index index = index();
        int count = 0;
        for (int i = 0; i < index.groups().length; i++) {
            if (index.groups()[i] >= first && index.groups()[i] <= last) {
                count += index.counts()[i];
            }
        }
        return count;
    }

    /** Calls {@code visitor} for each entry whose key group is in {@code first..last}. */
    public void forEach(int first, int last, EntryVisitor visitor) {
        Index index = index();
        int[] groups = index.groups();
        int[] starts = index.starts();
        ByteArrayDataInput in = new ByteArrayDataInput();
        int width = names.size();
        int[] offsets = new int[width];
        int[] lengths = new int[width];
        try {
            for (int i = 0; i < groups.length; i++) {
                if (groups[i] < first || groups[i] > last) {
                    continue;
                }
                int stop = i + 1 < groups.length ? starts[i + 1] : end;
                in.reset(buffer, starts[i], stop - starts[i]);
                while (in.position() < stop) {
                    int group = in.readInt();
                    Object key = Codecs.auto().decode(in);
                    for (int s = 0; s < width; s++) {
                        int length = in.readInt();
                        offsets[s] = in.position();
                        lengths[s] = length;
                        if (length > 0) {
                            in.skipBytes(length);
                        }
                    }
                    visitor.visit(group, key, buffer, offsets, lengths);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e); // the structure was checked by read()
        }
    }

    /** Every entry as an object (for inspection tools; restores use {@link #forEach}). */
    public List<RawEntry> entries() {
        List<RawEntry> entries = new ArrayList<>(entryCount);
        forEach(
                Integer.MIN_VALUE,
                Integer.MAX_VALUE,
                (group, key, bytes, offsets, lengths) -> {
                    byte[][] values = new byte[lengths.length][];
                    for (int s = 0; s < lengths.length; s++) {
                        if (lengths[s] >= 0) {
                            values[s] =
                                    Arrays.copyOfRange(bytes, offsets[s], offsets[s] + lengths[s]);
                        }
                    }
                    entries.add(new RawEntry(group, key, values));
                });
        return entries;
    }
}
