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

    /**
     * A section of {@code keyCount} keys written by backend {@code backendId}. The runtime makes
     * these; a backend receives them in {@link KeyedStateBackend#restore}.
     *
     * @param backendId the {@link KeyedStateBackendFactory#id()} of the backend that wrote it
     * @param keyCount the number of keys in it
     * @param buffer holds the bytes; not copied, so do not change it afterwards
     * @param offset where the bytes start in {@code buffer}
     * @param length how many bytes there are
     * @param files the files outside the checkpoint directory it refers to; copied
     * @throws IllegalArgumentException if {@code offset} and {@code length} do not fit {@code
     *     buffer}
     */
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

    /** {@return the {@link KeyedStateBackendFactory#id()} of the backend that wrote it} */
    public String backendId() {
        return backendId;
    }

    /** {@return the number of keys in the section} */
    public int keyCount() {
        return keyCount;
    }

    /** {@return the array holding the bytes; read only {@code [offset(), offset() + length())}} */
    public byte[] buffer() {
        return buffer;
    }

    /** {@return where the bytes start in {@link #buffer()}} */
    public int offset() {
        return offset;
    }

    /** {@return the number of bytes, from {@link #offset()} on} */
    public int length() {
        return length;
    }

    /** {@return the files outside the checkpoint directory the section refers to} */
    public List<ExternalFile> files() {
        return files;
    }

    /**
     * The backend's parsed form of this section, made by {@code parse} on first use and kept; any
     * thread.
     *
     * @param <T> the parsed form's type; the same for every caller of one section
     * @param parse turns the section into the parsed form; called at most once, under this
     *     section's lock
     * @return the parsed form, shared by every caller
     */
    @SuppressWarnings("unchecked")
    public synchronized <T> T memo(Function<KeyedSection, T> parse) {
        if (memo == null) {
            memo = parse.apply(this);
        }
        return (T) memo;
    }
}
