package dev.weir.internal.io;

import java.io.DataInput;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * A {@link DataInput} over a slice of a byte array, without locks or copies, for decoding records
 * read from a log. Byte-compatible with {@code DataInputStream}. Reusable via {@link #reset}.
 */
public final class ByteArrayDataInput implements DataInput {
    private static final VarHandle INT =
            MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle LONG =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    private byte[] buffer;
    private int position;
    private int limit;

    /** Points this input at {@code buffer[offset .. offset + length)}. */
    public ByteArrayDataInput reset(byte[] buffer, int offset, int length) {
        this.buffer = buffer;
        this.position = offset;
        this.limit = offset + length;
        return this;
    }

    /** Index in the buffer of the next byte to read. */
    public int position() {
        return position;
    }

    private void need(int bytes) throws EOFException {
        if (limit - position < bytes) {
            throw new EOFException(
                    "record ends after "
                            + (limit - position)
                            + " more bytes, "
                            + bytes
                            + " needed");
        }
    }

    @Override
    public void readFully(byte[] b) throws IOException {
        readFully(b, 0, b.length);
    }

    @Override
    public void readFully(byte[] b, int off, int len) throws IOException {
        need(len);
        System.arraycopy(buffer, position, b, off, len);
        position += len;
    }

    @Override
    public int skipBytes(int n) {
        int skipped = Math.min(n, limit - position);
        position += skipped;
        return skipped;
    }

    @Override
    public boolean readBoolean() throws IOException {
        return readByte() != 0;
    }

    @Override
    public byte readByte() throws IOException {
        need(1);
        return buffer[position++];
    }

    @Override
    public int readUnsignedByte() throws IOException {
        return readByte() & 0xff;
    }

    @Override
    public short readShort() throws IOException {
        need(2);
        short v = (short) (((buffer[position] & 0xff) << 8) | (buffer[position + 1] & 0xff));
        position += 2;
        return v;
    }

    @Override
    public int readUnsignedShort() throws IOException {
        return readShort() & 0xffff;
    }

    @Override
    public char readChar() throws IOException {
        return (char) readShort();
    }

    @Override
    public int readInt() throws IOException {
        need(4);
        int v = (int) INT.get(buffer, position);
        position += 4;
        return v;
    }

    @Override
    public long readLong() throws IOException {
        need(8);
        long v = (long) LONG.get(buffer, position);
        position += 8;
        return v;
    }

    @Override
    public float readFloat() throws IOException {
        return Float.intBitsToFloat(readInt());
    }

    @Override
    public double readDouble() throws IOException {
        return Double.longBitsToDouble(readLong());
    }

    @Override
    public String readLine() {
        throw new UnsupportedOperationException("readLine is deprecated in DataInput");
    }

    @Override
    public String readUTF() throws IOException {
        return DataInputStream.readUTF(this);
    }
}
