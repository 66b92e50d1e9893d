package dev.weir.internal.io;

import java.io.ByteArrayOutputStream;
import java.io.DataOutput;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;

/**
 * A growable byte array implementing {@link DataOutput} without locks, for serialising snapshots:
 * {@code DataOutputStream} over {@code ByteArrayOutputStream} takes a monitor per byte, which made
 * serialisation the main cost of a checkpoint. Byte-compatible with {@code DataOutputStream}.
 * Single-threaded.
 */
public final class ByteArrayDataOutput implements DataOutput {
    private byte[] buffer;
    private int size;

    public ByteArrayDataOutput(int initialCapacity) {
        this.buffer = new byte[Math.max(16, initialCapacity)];
    }

    private void ensure(int extra) {
        if (size + extra > buffer.length) {
            buffer = Arrays.copyOf(buffer, Math.max(buffer.length * 2, size + extra));
        }
    }

    /** Overwrites the int at {@code position} (a length written before its bytes were known). */
    public void patchInt(int position, int v) {
        buffer[position] = (byte) (v >>> 24);
        buffer[position + 1] = (byte) (v >>> 16);
        buffer[position + 2] = (byte) (v >>> 8);
        buffer[position + 3] = (byte) v;
    }

    public int size() {
        return size;
    }

    /** Forgets the contents, keeping the buffer. */
    public void reset() {
        size = 0;
    }

    /** The internal buffer; valid up to {@link #size()}. */
    public byte[] buffer() {
        return buffer;
    }

    public byte[] toByteArray() {
        return Arrays.copyOf(buffer, size);
    }

    @Override
    public void write(int b) {
        ensure(1);
        buffer[size++] = (byte) b;
    }

    @Override
    public void write(byte[] b) {
        write(b, 0, b.length);
    }

    @Override
    public void write(byte[] b, int off, int len) {
        ensure(len);
        System.arraycopy(b, off, buffer, size, len);
        size += len;
    }

    @Override
    public void writeBoolean(boolean v) {
        write(v ? 1 : 0);
    }

    @Override
    public void writeByte(int v) {
        write(v);
    }

    @Override
    public void writeShort(int v) {
        ensure(2);
        buffer[size++] = (byte) (v >>> 8);
        buffer[size++] = (byte) v;
    }

    @Override
    public void writeChar(int v) {
        writeShort(v);
    }

    @Override
    public void writeInt(int v) {
        ensure(4);
        buffer[size++] = (byte) (v >>> 24);
        buffer[size++] = (byte) (v >>> 16);
        buffer[size++] = (byte) (v >>> 8);
        buffer[size++] = (byte) v;
    }

    @Override
    public void writeLong(long v) {
        ensure(8);
        for (int shift = 56; shift >= 0; shift -= 8) {
            buffer[size++] = (byte) (v >>> shift);
        }
    }

    @Override
    public void writeFloat(float v) {
        writeInt(Float.floatToIntBits(v));
    }

    @Override
    public void writeDouble(double v) {
        writeLong(Double.doubleToLongBits(v));
    }

    @Override
    public void writeBytes(String s) {
        for (int i = 0; i < s.length(); i++) {
            write(s.charAt(i));
        }
    }

    @Override
    public void writeChars(String s) {
        for (int i = 0; i < s.length(); i++) {
            writeChar(s.charAt(i));
        }
    }

    @Override
    public void writeUTF(String s) {
        // Rare (names only): reuse the JDK's modified UTF-8 encoding for exact compatibility.
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(s.length() + 2);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeUTF(s);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        write(bytes.toByteArray());
    }
}
