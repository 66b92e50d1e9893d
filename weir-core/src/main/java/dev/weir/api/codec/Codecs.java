package dev.weir.api.codec;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.io.ObjectStreamException;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.RecordComponent;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Built-in codecs: {@code long}, {@code int}, {@code double}, {@code String}, {@code byte[]}, Java
 * records whose components have codecs, and {@link #auto()} which picks one at run time.
 *
 * <p>Each has a stable {@link Codec#id()} ({@code weir.long}, {@code weir.auto}, {@code
 * weir.record:<class>}, ...), recorded in checkpoints with the state it writes.
 */
public final class Codecs {
    /**
     * Upper bound on an encoded string or byte array, so a corrupt length cannot exhaust memory.
     */
    public static final int MAX_ARRAY_BYTES = 256 * 1024 * 1024;

    /** Upper bound on the elements of an encoded collection. */
    static final int MAX_ELEMENTS = 64 * 1024 * 1024;

    /** 8 bytes, big-endian. */
    public static final Codec<Long> LONG = new LongCodec();

    /** 4 bytes, big-endian. */
    public static final Codec<Integer> INT = new IntCodec();

    /** IEEE 754 bits, 8 bytes. */
    public static final Codec<Double> DOUBLE = new DoubleCodec();

    /** Length-prefixed byte array. */
    public static final Codec<byte[]> BYTES = new BytesCodec();

    /** UTF-8, length-prefixed (no 64 KiB limit, unlike {@code writeUTF}). */
    public static final Codec<String> STRING = new StringCodec();

    private static final AutoCodec AUTO = new AutoCodec();

    private Codecs() {}

    /**
     * A self-describing codec: each value carries a one-byte type tag, so it suits keys and mixed
     * values; prefer a typed codec for large state. It encodes {@code null}, Long, Integer, Short,
     * Byte, Double, Float, Boolean, Character, String, byte[], BigInteger, BigDecimal, UUID,
     * Instant, Duration, LocalDate, LocalTime, LocalDateTime, enum constants (by class and name),
     * records whose components it encodes, and Lists, Sets and Maps of such values (decoded as
     * ArrayList, LinkedHashSet and LinkedHashMap). Anything else is refused with the type named.
     *
     * @param <T> the value type, as the caller needs it; not checked
     * @return the shared codec, with id {@code weir.auto}
     */
    @SuppressWarnings("unchecked")
    public static <T> Codec<T> auto() {
        return (Codec<T>) AUTO;
    }

    /**
     * True if {@link #auto()} can encode {@code value} (and, for records and collections, what it
     * holds); a quick test that does not allocate.
     *
     * @param value the value to test; may be null
     * @return true if {@code auto().encode(value, out)} would not refuse it
     */
    public static boolean autoEncodes(Object value) {
        return AutoCodec.whyNot(value, 0) == null;
    }

    /**
     * A codec for the record class {@code type}; each component uses {@link #auto()}'s rules for
     * its declared type.
     *
     * @param <R> the record type
     * @param type the record class; it must have a canonical constructor the codec can call
     * @return a codec whose id names the class and its components (names and types, in order), so
     *     renaming the class or changing a component changes it
     * @throws IllegalArgumentException if {@code type} is not a record class
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

    static int checkedCount(int count) throws IOException {
        if (count < 0 || count > MAX_ELEMENTS) {
            throw new IOException(
                    "corrupt element count "
                            + count
                            + "; the data is damaged or was written by another codec");
        }
        return count;
    }

    private static final class LongCodec implements Codec<Long> {
        @Override
        public void encode(Long value, DataOutput out) throws IOException {
            out.writeLong(value);
        }

        @Override
        public Long decode(DataInput in) throws IOException {
            return in.readLong();
        }

        @Override
        public String id() {
            return "weir.long";
        }

        private Object readResolve() throws ObjectStreamException {
            return LONG;
        }
    }

    private static final class IntCodec implements Codec<Integer> {
        @Override
        public void encode(Integer value, DataOutput out) throws IOException {
            out.writeInt(value);
        }

        @Override
        public Integer decode(DataInput in) throws IOException {
            return in.readInt();
        }

        @Override
        public String id() {
            return "weir.int";
        }

        private Object readResolve() throws ObjectStreamException {
            return INT;
        }
    }

    private static final class DoubleCodec implements Codec<Double> {
        @Override
        public void encode(Double value, DataOutput out) throws IOException {
            out.writeDouble(value);
        }

        @Override
        public Double decode(DataInput in) throws IOException {
            return in.readDouble();
        }

        @Override
        public String id() {
            return "weir.double";
        }

        private Object readResolve() throws ObjectStreamException {
            return DOUBLE;
        }
    }

    private static final class BytesCodec implements Codec<byte[]> {
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

        @Override
        public String id() {
            return "weir.bytes";
        }

        private Object readResolve() throws ObjectStreamException {
            return BYTES;
        }
    }

    private static final class StringCodec implements Codec<String> {
        @Override
        public void encode(String value, DataOutput out) throws IOException {
            BYTES.encode(value.getBytes(StandardCharsets.UTF_8), out);
        }

        @Override
        public String decode(DataInput in) throws IOException {
            return new String(BYTES.decode(in), StandardCharsets.UTF_8);
        }

        @Override
        public String id() {
            return "weir.string";
        }

        private Object readResolve() throws ObjectStreamException {
            return STRING;
        }
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
        private static final byte ENUM_TAG = 8;
        private static final byte SHORT_TAG = 9;
        private static final byte BYTE_TAG = 10;
        private static final byte FLOAT_TAG = 11;
        private static final byte CHAR_TAG = 12;
        private static final byte BIG_INTEGER_TAG = 13;
        private static final byte BIG_DECIMAL_TAG = 14;
        private static final byte UUID_TAG = 15;
        private static final byte INSTANT_TAG = 16;
        private static final byte DURATION_TAG = 17;
        private static final byte LOCAL_DATE_TAG = 18;
        private static final byte LOCAL_TIME_TAG = 19;
        private static final byte LOCAL_DATE_TIME_TAG = 20;
        private static final byte LIST_TAG = 21;
        private static final byte SET_TAG = 22;
        private static final byte MAP_TAG = 23;

        /**
         * A record with the fingerprint of its components (names and types, in order): decoded into
         * a class whose components changed, it fails instead of filling the wrong ones (two {@code
         * long} components swapped decoded silently under {@link #RECORD_TAG}, which is still
         * read).
         */
        private static final byte RECORD_CHECKED_TAG = 24;

        /** Nesting beyond this is refused (a cycle, or a structure no key or state needs). */
        private static final int MAX_DEPTH = 32;

        private static final Map<String, RecordCodec<?>> RECORDS = new ConcurrentHashMap<>();

        @Override
        public String id() {
            return "weir.auto";
        }

        private Object readResolve() throws ObjectStreamException {
            return AUTO;
        }

        /** Null if {@code value} can be encoded, else why not (naming the type). */
        static String whyNot(Object value, int depth) {
            if (depth > MAX_DEPTH) {
                return "values nested more than " + MAX_DEPTH + " deep (a cycle?)";
            }
            if (value == null
                    || value instanceof Long
                    || value instanceof Integer
                    || value instanceof String
                    || value instanceof Double
                    || value instanceof Boolean
                    || value instanceof byte[]
                    || value instanceof Short
                    || value instanceof Byte
                    || value instanceof Float
                    || value instanceof Character
                    || value instanceof BigInteger
                    || value instanceof BigDecimal
                    || value instanceof UUID
                    || value instanceof Instant
                    || value instanceof Duration
                    || value instanceof LocalDate
                    || value instanceof LocalTime
                    || value instanceof LocalDateTime
                    || value instanceof Enum<?>) {
                return null;
            }
            if (value instanceof Record r) {
                for (RecordComponent component : r.getClass().getRecordComponents()) {
                    String why;
                    try {
                        component.getAccessor().setAccessible(true);
                        why = whyNot(component.getAccessor().invoke(r), depth + 1);
                    } catch (ReflectiveOperationException | RuntimeException e) {
                        return "record "
                                + r.getClass().getName()
                                + " whose component "
                                + component.getName()
                                + " cannot be read ("
                                + e
                                + ")";
                    }
                    if (why != null) {
                        return why
                                + " (component "
                                + component.getName()
                                + " of "
                                + r.getClass().getName()
                                + ")";
                    }
                }
                return null;
            }
            if (value instanceof List<?> || value instanceof Set<?>) {
                for (Object element : (Iterable<?>) value) {
                    String why = whyNot(element, depth + 1);
                    if (why != null) {
                        return why;
                    }
                }
                return null;
            }
            if (value instanceof Map<?, ?> map) {
                for (Map.Entry<?, ?> entry : map.entrySet()) {
                    String why = whyNot(entry.getKey(), depth + 1);
                    if (why == null) {
                        why = whyNot(entry.getValue(), depth + 1);
                    }
                    if (why != null) {
                        return why;
                    }
                }
                return null;
            }
            return value.getClass().getName();
        }

        @Override
        public void encode(Object value, DataOutput out) throws IOException {
            encode(value, out, 0);
        }

        private void encode(Object value, DataOutput out, int depth) throws IOException {
            if (depth > MAX_DEPTH) {
                throw new IllegalArgumentException(
                        "Codecs.auto() refuses values nested more than " + MAX_DEPTH + " deep");
            }
            if (value == null) {
                out.writeByte(NULL);
            } else if (value instanceof Long v) {
                out.writeByte(LONG_TAG);
                out.writeLong(v);
            } else if (value instanceof Integer v) {
                out.writeByte(INT_TAG);
                out.writeInt(v);
            } else if (value instanceof String v) {
                out.writeByte(STRING_TAG);
                STRING.encode(v, out);
            } else if (value instanceof Double v) {
                out.writeByte(DOUBLE_TAG);
                out.writeDouble(v);
            } else if (value instanceof byte[] v) {
                out.writeByte(BYTES_TAG);
                BYTES.encode(v, out);
            } else if (value instanceof Boolean v) {
                out.writeByte(BOOLEAN_TAG);
                out.writeBoolean(v);
            } else if (value instanceof Record r) {
                out.writeByte(RECORD_CHECKED_TAG);
                STRING.encode(r.getClass().getName(), out);
                RecordCodec<?> codec = recordCodec(r.getClass());
                out.writeInt(codec.fingerprint());
                codec.encodeUnchecked(r, out, depth + 1);
            } else if (value instanceof Enum<?> e) {
                out.writeByte(ENUM_TAG);
                STRING.encode(e.getDeclaringClass().getName(), out);
                STRING.encode(e.name(), out);
            } else if (value instanceof Short v) {
                out.writeByte(SHORT_TAG);
                out.writeShort(v);
            } else if (value instanceof Byte v) {
                out.writeByte(BYTE_TAG);
                out.writeByte(v);
            } else if (value instanceof Float v) {
                out.writeByte(FLOAT_TAG);
                out.writeFloat(v);
            } else if (value instanceof Character v) {
                out.writeByte(CHAR_TAG);
                out.writeChar(v);
            } else if (value instanceof BigInteger v) {
                out.writeByte(BIG_INTEGER_TAG);
                BYTES.encode(v.toByteArray(), out);
            } else if (value instanceof BigDecimal v) {
                out.writeByte(BIG_DECIMAL_TAG);
                out.writeInt(v.scale());
                BYTES.encode(v.unscaledValue().toByteArray(), out);
            } else if (value instanceof UUID v) {
                out.writeByte(UUID_TAG);
                out.writeLong(v.getMostSignificantBits());
                out.writeLong(v.getLeastSignificantBits());
            } else if (value instanceof Instant v) {
                out.writeByte(INSTANT_TAG);
                out.writeLong(v.getEpochSecond());
                out.writeInt(v.getNano());
            } else if (value instanceof Duration v) {
                out.writeByte(DURATION_TAG);
                out.writeLong(v.getSeconds());
                out.writeInt(v.getNano());
            } else if (value instanceof LocalDate v) {
                out.writeByte(LOCAL_DATE_TAG);
                out.writeLong(v.toEpochDay());
            } else if (value instanceof LocalTime v) {
                out.writeByte(LOCAL_TIME_TAG);
                out.writeLong(v.toNanoOfDay());
            } else if (value instanceof LocalDateTime v) {
                out.writeByte(LOCAL_DATE_TIME_TAG);
                out.writeLong(v.toLocalDate().toEpochDay());
                out.writeLong(v.toLocalTime().toNanoOfDay());
            } else if (value instanceof List<?> list) {
                out.writeByte(LIST_TAG);
                writeElements(list, list.size(), out, depth);
            } else if (value instanceof Set<?> set) {
                out.writeByte(SET_TAG);
                writeElements(set, set.size(), out, depth);
            } else if (value instanceof Map<?, ?> map) {
                out.writeByte(MAP_TAG);
                out.writeInt(map.size());
                for (Map.Entry<?, ?> entry : map.entrySet()) {
                    encode(entry.getKey(), out, depth + 1);
                    encode(entry.getValue(), out, depth + 1);
                }
            } else {
                throw new IllegalArgumentException(
                        "Codecs.auto() cannot encode "
                                + value.getClass().getName()
                                + "; use a boxed number, String, byte[], Boolean, an enum, a"
                                + " java.time value, UUID, BigInteger/BigDecimal, a record or a"
                                + " List/Set/Map of those, or pass an explicit Codec");
            }
        }

        private void writeElements(Iterable<?> elements, int size, DataOutput out, int depth)
                throws IOException {
            out.writeInt(size);
            for (Object element : elements) {
                encode(element, out, depth + 1);
            }
        }

        @Override
        public Object decode(DataInput in) throws IOException {
            return decode(in, 0);
        }

        Object decode(DataInput in, int depth) throws IOException {
            if (depth > MAX_DEPTH) {
                throw new IOException("Codecs.auto() data nested more than " + MAX_DEPTH + " deep");
            }
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
                    return recordCodec(loadClass(className, true)).decode(in, depth + 1);
                case RECORD_CHECKED_TAG:
                    RecordCodec<?> checked = recordCodec(loadClass(STRING.decode(in), true));
                    checked.checkFingerprint(in.readInt());
                    return checked.decode(in, depth + 1);
                case ENUM_TAG:
                    return enumConstant(loadClass(STRING.decode(in), false), STRING.decode(in));
                case SHORT_TAG:
                    return in.readShort();
                case BYTE_TAG:
                    return in.readByte();
                case FLOAT_TAG:
                    return in.readFloat();
                case CHAR_TAG:
                    return in.readChar();
                case BIG_INTEGER_TAG:
                    return new BigInteger(BYTES.decode(in));
                case BIG_DECIMAL_TAG:
                    int scale = in.readInt();
                    return new BigDecimal(new BigInteger(BYTES.decode(in)), scale);
                case UUID_TAG:
                    return new UUID(in.readLong(), in.readLong());
                case INSTANT_TAG:
                    return Instant.ofEpochSecond(in.readLong(), in.readInt());
                case DURATION_TAG:
                    return Duration.ofSeconds(in.readLong(), in.readInt());
                case LOCAL_DATE_TAG:
                    return LocalDate.ofEpochDay(in.readLong());
                case LOCAL_TIME_TAG:
                    return LocalTime.ofNanoOfDay(in.readLong());
                case LOCAL_DATE_TIME_TAG:
                    return LocalDateTime.of(
                            LocalDate.ofEpochDay(in.readLong()),
                            LocalTime.ofNanoOfDay(in.readLong()));
                case LIST_TAG:
                    int listSize = checkedCount(in.readInt());
                    List<Object> list = new ArrayList<>(Math.min(listSize, 1024));
                    for (int i = 0; i < listSize; i++) {
                        list.add(decode(in, depth + 1));
                    }
                    return list;
                case SET_TAG:
                    int setSize = checkedCount(in.readInt());
                    Set<Object> set = new LinkedHashSet<>();
                    for (int i = 0; i < setSize; i++) {
                        set.add(decode(in, depth + 1));
                    }
                    return set;
                case MAP_TAG:
                    int mapSize = checkedCount(in.readInt());
                    Map<Object, Object> map = new LinkedHashMap<>();
                    for (int i = 0; i < mapSize; i++) {
                        map.put(decode(in, depth + 1), decode(in, depth + 1));
                    }
                    return map;
                default:
                    throw new IOException(
                            "unknown type tag "
                                    + tag
                                    + " in Codecs.auto() data; the data is damaged or was written"
                                    + " by another codec");
            }
        }

        private static RecordCodec<?> recordCodec(Class<?> type) {
            return RECORDS.computeIfAbsent(type.getName(), n -> new RecordCodec<>(asRecord(type)));
        }

        @SuppressWarnings("unchecked")
        private static Class<? extends Record> asRecord(Class<?> type) {
            return (Class<? extends Record>) type;
        }

        @SuppressWarnings({"unchecked", "rawtypes"})
        private static Object enumConstant(Class<?> type, String name) throws IOException {
            if (!type.isEnum()) {
                throw new IOException(type.getName() + " in stored data is not an enum");
            }
            try {
                return Enum.valueOf((Class) type, name);
            } catch (IllegalArgumentException e) {
                throw new IOException(
                        "enum "
                                + type.getName()
                                + " has no constant "
                                + name
                                + " any more, but stored data holds it; keep the constant or"
                                + " migrate the state",
                        e);
            }
        }

        private static Class<?> loadClass(String name, boolean record) throws IOException {
            try {
                Class<?> type =
                        Class.forName(name, false, Thread.currentThread().getContextClassLoader());
                if (record && !type.isRecord()) {
                    throw new IOException(name + " is not a record class");
                }
                return type;
            } catch (ClassNotFoundException e) {
                throw new IOException(
                        "class " + name + " in stored data is not on the class path", e);
            }
        }
    }

    private static final class RecordCodec<R extends Record> implements Codec<R> {
        private final Class<R> type;
        private transient RecordComponent[] components;
        private transient Constructor<R> constructor;

        /** {@code (<type> <name>,...)} of the components, and its hash: computed once. */
        private transient String signature;

        private transient int fingerprint;

        RecordCodec(Class<R> type) {
            if (!type.isRecord()) {
                throw new IllegalArgumentException(type.getName() + " is not a record class");
            }
            this.type = type;
            init();
        }

        /** Looks up the components and constructor (again, after deserialisation). */
        private void init() {
            RecordComponent[] found = type.getRecordComponents();
            Class<?>[] types = new Class<?>[found.length];
            for (int i = 0; i < found.length; i++) {
                types[i] = found[i].getType();
                found[i].getAccessor().setAccessible(true);
            }
            try {
                Constructor<R> canonical = type.getDeclaredConstructor(types);
                canonical.setAccessible(true);
                this.constructor = canonical;
            } catch (NoSuchMethodException e) {
                throw new IllegalArgumentException(
                        "record " + type.getName() + " has no canonical constructor", e);
            }
            StringBuilder text = new StringBuilder("(");
            for (RecordComponent component : found) {
                if (text.length() > 1) {
                    text.append(',');
                }
                text.append(component.getType().getName()).append(' ').append(component.getName());
            }
            this.signature = text.append(')').toString();
            this.fingerprint = signature.hashCode();
            this.components = found; // last: components() inits when it is null
        }

        private RecordComponent[] components() {
            if (components == null) {
                init();
            }
            return components;
        }

        /** {@code weir.record:<class>(<type> <name>,...)}: a change of components changes it. */
        @Override
        public String id() {
            return "weir.record:" + type.getName() + signature();
        }

        /** Also reads what this record's codec wrote before ids named the components. */
        @Override
        public boolean canRead(String writtenBy) {
            return id().equals(writtenBy) || ("weir.record:" + type.getName()).equals(writtenBy);
        }

        private String signature() {
            components();
            return signature;
        }

        /** Written with each record by {@code Codecs.auto()}: once per class, not per record. */
        int fingerprint() {
            components();
            return fingerprint;
        }

        void checkFingerprint(int written) throws IOException {
            if (written != fingerprint()) {
                throw new IOException(
                        "record "
                                + type.getName()
                                + " was written with other components than it has now "
                                + signature()
                                + ": components reordered, renamed, added or removed would be"
                                + " decoded into the wrong ones. Restore with the class as it was,"
                                + " or start this state afresh (a savepoint cannot carry it over)");
            }
        }

        void encodeUnchecked(Record value, DataOutput out, int depth) throws IOException {
            encode(type.cast(value), out, depth);
        }

        @Override
        public void encode(R value, DataOutput out) throws IOException {
            encode(value, out, 0);
        }

        private void encode(R value, DataOutput out, int depth) throws IOException {
            for (RecordComponent component : components()) {
                try {
                    AUTO.encode(component.getAccessor().invoke(value), out, depth);
                } catch (IllegalAccessException | InvocationTargetException e) {
                    throw new IOException("cannot read component " + component.getName(), e);
                }
            }
        }

        @Override
        public R decode(DataInput in) throws IOException {
            return decode(in, 0);
        }

        R decode(DataInput in, int depth) throws IOException {
            RecordComponent[] all = components();
            Object[] args = new Object[all.length];
            for (int i = 0; i < args.length; i++) {
                args[i] = AUTO.decode(in, depth);
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
