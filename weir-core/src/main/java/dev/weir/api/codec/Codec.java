package dev.weir.api.codec;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInput;
import java.io.DataInputStream;
import java.io.DataOutput;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;

/**
 * Writes values of one type to bytes and reads them back, for checkpoints and logs.
 *
 * <p>Implementations must be deterministic and must round-trip: {@code decode(encode(v))} equals
 * {@code v}. A codec is stateless and may be called from any thread; it is serialisable because it
 * travels with the source, sink or function that holds it. Built-ins are in {@link Codecs}.
 *
 * <h2>Identity and evolving a state type</h2>
 *
 * Checkpoints record the {@link #id()} of the codec that wrote each state, and a restore refuses a
 * state whose declared codec cannot read that id ({@link #canRead}), naming the state and both
 * codecs, instead of decoding bytes of one format with another. To change how a state is stored,
 * either give it a new name (the old state is then dropped with {@code
 * Pipeline.allowNonRestoredState(true)}), or write a codec that reads both formats: give it a new
 * {@code id()}, let {@code canRead} accept the old id, and let {@code decode} tell the formats
 * apart (for example by a version byte that the new {@code encode} writes first).
 *
 * @param <T> value type
 */
public interface Codec<T> extends Serializable {
    /**
     * Writes {@code value} (not null) to {@code out}.
     *
     * @param value the value to write; not null (only {@link Codecs#auto()} accepts null)
     * @param out the stream to write to; the codec writes only its own bytes and does not close it
     * @throws IOException if {@code out} fails
     */
    void encode(T value, DataOutput out) throws IOException;

    /**
     * Reads one value written by {@link #encode}.
     *
     * @param in the stream positioned at a value; read exactly the bytes {@code encode} wrote
     * @return the value
     * @throws IOException if the bytes are damaged or in another format, or {@code in} fails
     */
    T decode(DataInput in) throws IOException;

    /**
     * Names the format this codec writes, recorded in checkpoints beside each state it encodes. The
     * default is the codec's class name; override it with a stable name (and a version) for a codec
     * whose class may be renamed, such as an anonymous class. Built-ins are named {@code weir.*}.
     *
     * @return a name that stays the same for as long as the format does
     */
    default String id() {
        return getClass().getName();
    }

    /**
     * True if {@link #decode} reads values written by the codec whose {@link #id()} is {@code
     * writtenBy}; by default only its own id. A restore refuses a state written by a codec this one
     * cannot read.
     *
     * @param writtenBy the id recorded with the stored state
     * @return true if {@link #decode} can read what that codec wrote
     */
    default boolean canRead(String writtenBy) {
        return id().equals(writtenBy);
    }

    /**
     * Encodes {@code value} into a new byte array.
     *
     * @param value the value to encode
     * @return the encoded bytes
     * @throws java.io.UncheckedIOException if {@link #encode} throws an {@code IOException}
     */
    default byte[] toBytes(T value) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            encode(value, out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /**
     * Decodes a value from a byte array made by {@link #toBytes}.
     *
     * @param bytes bytes made by {@link #toBytes} of this codec or one it {@linkplain #canRead can
     *     read}
     * @return the decoded value
     * @throws java.io.UncheckedIOException if {@link #decode} throws an {@code IOException}
     */
    default T fromBytes(byte[] bytes) {
        try {
            return decode(new DataInputStream(new ByteArrayInputStream(bytes)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
