package dev.weir.api.state;

import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * One old subtask's keyed state as a checkpoint holds it, handed to {@link
 * KeyedStateBackend#restore}: the bytes its backend wrote, and the files outside the checkpoint
 * directory it refers to (for incremental checkpoints, whose unchanged files are shared between
 * checkpoints; the heap backend refers to none). The bytes are {@code buffer[offset, offset +
 * length)}; they were verified against the checkpoint's checksums before this is made.
 *
 * <p>Several new subtasks may restore from one section at once (a rescale): a backend that parses a
 * section before restoring a range of it can keep the parsed form in {@link #memo} so that happens
 * once.
 */
public final class KeyedSection {
    /**
     * A file the section refers to.
     *
     * @param path the file, absolute or relative to the checkpoint's directory
     * @param length its length in bytes
     * @param crc32c its checksum
     */
    public record ExternalFile(String path, long length, long crc32c) {}

    private final String backendId;
    private final int keyCount;
    private final byte[] buffer;
    private final int offset;
    private final int length;
    private final List<ExternalFile> files;
    private Object memo;

    /** A section of {@code keyCount} keys written by backend {@code backendId}. */
    public KeyedSection(
            String backendId,
            int keyCount,
            byte[] buffer,
            int offset,
            int length,
            List<ExternalFile> files) {
        this.backendId = Objects.requireNonNull(backendId, "backendId");
        this.keyCount = keyCount;
        this.buffer = Objects.requireNonNull(buffer, "buffer");
        if (offset < 0 || length < 0 || offset + length > buffer.length) {
            throw new IllegalArgumentException("section out of bounds");
        }
        this.offset = offset;
        this.length = length;
        this.files = List.copyOf(files);
    }

    /** The {@link KeyedStateBackendFactory#id()} of the backend that wrote it. */
    public String backendId() {
        return backendId;
    }

    /** Number of keys in the section. */
    public int keyCount() {
        return keyCount;
    }

    /** The bytes' array; read {@code [offset(), offset() + length())} only. */
    public byte[] buffer() {
        return buffer;
    }

    public int offset() {
        return offset;
    }

    public int length() {
        return length;
    }

    /** Files outside the checkpoint directory the section refers to. */
    public List<ExternalFile> files() {
        return files;
    }

    /**
     * The backend's parsed form of this section, made by {@code parse} on first use and kept; any
     * thread.
     */
    @SuppressWarnings("unchecked")
    public synchronized <T> T memo(Function<KeyedSection, T> parse) {
        if (memo == null) {
            memo = parse.apply(this);
        }
        return (T) memo;
    }
}
