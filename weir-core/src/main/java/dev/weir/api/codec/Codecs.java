package dev.weir.api.codec;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.RecordComponent;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Built-in codecs: {@code long}, {@code int}, {@code double}, {@code String}, {@code byte[]}, Java
 * records whose components have codecs, and {@link #auto()} which picks one of those at run time.
 */
public final class Codecs {
    /**
     * Upper bound on an encoded string or byte array, so a corrupt length cannot exhaust memory.
     */
    public static final int MAX_ARRAY_BYTES = 256 * 1024 * 1024;

    /** 8 bytes, big-endian. */
    public static final Codec<Long> LONG =
            new Codec<>() {
                @Override
                public void encode(Long value, DataOutput out) throws IOException {
                    out.writeLong(value);
                }

                @Override
                public Long decode(DataInput in) throws IOException {
                    return in.readLong();
                }
            };

    /** 4 bytes, big-endian. */
    public static final Codec<Integer> INT =
            new Codec<>() {
                @Override
                public void encode(Integer value, DataOutput out) throws IOException {
                    out.writeInt(value);
                }

                @Override
                public Integer decode(DataInput in) throws IOException {
                    return in.readInt();
                }
            };

    /** IEEE 754 bits, 8 bytes. */
    public static final Codec<Double> DOUBLE =
            new Codec<>() {
                @Override
                public void encode(Double value, DataOutput out) throws IOException {
                    out.writeDouble(value);
                }

                @Override
                public Double decode(DataInput in) throws IOException {
                    return in.readDouble();
                }
            };

    /** Length-prefixed byte array. */
    public static final Codec<byte[]> BYTES =
            new Codec<>() {
                @Override
                public void encode(byte[] value, DataOutput out) throws IOException {
                    out.writeInt(value.length);
                    out.write(value);
                }

                @Override
                public byte[] decode(DataInput in) throws IOException {
                    byte[] bytes = new byte[checkedLength(in.readInt())];
                    in.readFully(bytes);
                    return bytes;
                }
            };

    /** UTF-8, length-prefixed (no 64 KiB limit, unlike {@code writeUTF}). */
    public static final Codec<String> STRING =
            new Codec<>() {
                @Override
                public void encode(String value, DataOutput out) throws IOException {
                    BYTES.encode(value.getBytes(StandardCharsets.UTF_8), out);
                }

                @Override
                public String decode(DataInput in) throws IOException {
                    return new String(BYTES.decode(in), StandardCharsets.UTF_8);
                }
            };

    private static final Codec<Object> AUTO = new AutoCodec();

    private Codecs() {}

    /**
     * A codec for values whose class is one of: Long, Integer, Double, String, byte[], Boolean, or
     * a record whose components are such values. Each value carries a one-byte type tag (records
     * also their class name), so it suits keys and mixed values; prefer a typed codec for large
     * state.
     */
    @SuppressWarnings("unchecked")
    public static <T> Codec<T> auto() {
        return (Codec<T>) AUTO;
    }

    /**
     * A codec for the record class {@code type}; each component uses {@link #auto()}'s rules for
     * its declared type.
     */
    public static <R extends Record> Codec<R> record(Class<R> type) {
        return new RecordCodec<>(type);
    }

    static int checkedLength(int length) throws IOException {
        if (length < 0 || length > MAX_ARRAY_BYTES) {
            throw new IOException(
                    "corrupt length "
                            + length
                            + " (allowed 0.."
                            + MAX_ARRAY_BYTES
                            + "); the data is damaged or was written by another codec");
        }
        return length;
    }

    private static final class AutoCodec implements Codec<Object> {
        private static final byte NULL = 0;
        private static final byte LONG_TAG = 1;
        private static final byte INT_TAG = 2;
        private static final byte DOUBLE_TAG = 3;
        private static final byte STRING_TAG = 4;
        private static final byte BYTES_TAG = 5;
        private static final byte BOOLEAN_TAG = 6;
        private static final byte RECORD_TAG = 7;

        private final Map<String, RecordCodec<?>> records = new ConcurrentHashMap<>();

        @Override
        public void encode(Object value, DataOutput out) throws IOException {
            if (value == null) {
                out.writeByte(NULL);
            } else if (value instanceof Long v) {
                out.writeByte(LONG_TAG);
                out.writeLong(v);
            } else if (value instanceof Integer v) {
                out.writeByte(INT_TAG);
                out.writeInt(v);
            } else if (value instanceof Double v) {
                out.writeByte(DOUBLE_TAG);
                out.writeDouble(v);
            } else if (value instanceof String v) {
                out.writeByte(STRING_TAG);
                STRING.encode(v, out);
            } else if (value instanceof byte[] v) {
                out.writeByte(BYTES_TAG);
                BYTES.encode(v, out);
            } else if (value instanceof Boolean v) {
                out.writeByte(BOOLEAN_TAG);
                out.writeBoolean(v);
            } else if (value instanceof Record r) {
                out.writeByte(RECORD_TAG);
                STRING.encode(r.getClass().getName(), out);
                recordCodec(r.getClass()).encodeUnchecked(r, out);
            } else {
                throw new IllegalArgumentException(
                        "Codecs.auto() cannot encode "
                                + value.getClass().getName()
                                + "; use Long, Integer, Double, String, byte[], Boolean or a record"
                                + " of those, or pass an explicit Codec");
            }
        }

        @Override
        public Object decode(DataInput in) throws IOException {
            byte tag = in.readByte();
            switch (tag) {
                case NULL:
                    return null;
                case LONG_TAG:
                    return in.readLong();
                case INT_TAG:
                    return in.readInt();
                case DOUBLE_TAG:
                    return in.readDouble();
                case STRING_TAG:
                    return STRING.decode(in);
                case BYTES_TAG:
                    return BYTES.decode(in);
                case BOOLEAN_TAG:
                    return in.readBoolean();
                case RECORD_TAG:
                    String className = STRING.decode(in);
                    return recordCodec(loadRecordClass(className)).decode(in);
                default:
                    throw new IOException(
                            "unknown type tag "
                                    + tag
                                    + " in Codecs.auto() data; the data is damaged or was written"
                                    + " by another codec");
            }
        }

        private RecordCodec<?> recordCodec(Class<?> type) {
            return records.computeIfAbsent(type.getName(), n -> new RecordCodec<>(asRecord(type)));
        }

        @SuppressWarnings("unchecked")
        private static Class<? extends Record> asRecord(Class<?> type) {
            return (Class<? extends Record>) type;
        }

        private static Class<?> loadRecordClass(String name) throws IOException {
            try {
                Class<?> type =
                        Class.forName(name, false, Thread.currentThread().getContextClassLoader());
                if (!type.isRecord()) {
                    throw new IOException(name + " is not a record class");
                }
                return type;
            } catch (ClassNotFoundException e) {
                throw new IOException(
                        "record class " + name + " in stored data is not on the class path", e);
            }
        }
    }

    private static final class RecordCodec<R extends Record> implements Codec<R> {
        private final Class<R> type;
        private final RecordComponent[] components;
        private final Constructor<R> constructor;

        RecordCodec(Class<R> type) {
            if (!type.isRecord()) {
                throw new IllegalArgumentException(type.getName() + " is not a record class");
            }
            this.type = type;
            this.components = type.getRecordComponents();
            Class<?>[] types = new Class<?>[components.length];
            for (int i = 0; i < components.length; i++) {
                types[i] = components[i].getType();
            }
            try {
                this.constructor = type.getDeclaredConstructor(types);
                this.constructor.setAccessible(true);
            } catch (NoSuchMethodException e) {
                throw new IllegalArgumentException(
                        "record " + type.getName() + " has no canonical constructor", e);
            }
        }

        void encodeUnchecked(Record value, DataOutput out) throws IOException {
            encode(type.cast(value), out);
        }

        @Override
        public void encode(R value, DataOutput out) throws IOException {
            for (RecordComponent component : components) {
                try {
                    component.getAccessor().setAccessible(true);
                    AUTO.encode(component.getAccessor().invoke(value), out);
                } catch (IllegalAccessException | InvocationTargetException e) {
                    throw new IOException("cannot read component " + component.getName(), e);
                }
            }
        }

        @Override
        public R decode(DataInput in) throws IOException {
            Object[] args = new Object[components.length];
            for (int i = 0; i < args.length; i++) {
                args[i] = AUTO.decode(in);
            }
            try {
                return constructor.newInstance(args);
            } catch (InstantiationException
                    | IllegalAccessException
                    | InvocationTargetException
                    | IllegalArgumentException e) {
                throw new IOException("cannot construct record " + type.getName(), e);
            }
        }
    }
}
