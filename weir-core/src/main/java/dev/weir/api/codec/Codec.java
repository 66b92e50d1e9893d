package dev.weir.api.codec;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInput;
import java.io.DataInputStream;
import java.io.DataOutput;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * Writes values of one type to bytes and reads them back, for checkpoints and logs.
 *
 * <p>Implementations must be deterministic and must round-trip: {@code decode(encode(v))} equals
 * {@code v}. A codec is stateless and may be called from any thread. Built-ins are in {@link
 * Codecs}.
 *
 * @param <T> value type
 */
public interface Codec<T> {
    /** Writes {@code value} (not null) to {@code out}. */
    void encode(T value, DataOutput out) throws IOException;

    /** Reads one value written by {@link #encode}. */
    T decode(DataInput in) throws IOException;

    /** Encodes {@code value} into a new byte array. */
    default byte[] toBytes(T value) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            encode(value, out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /** Decodes a value from a byte array made by {@link #toBytes}. */
    default T fromBytes(byte[] bytes) {
        try {
            return decode(new DataInputStream(new ByteArrayInputStream(bytes)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
