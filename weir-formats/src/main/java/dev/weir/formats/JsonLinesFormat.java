package dev.weir.formats;

import com.fasterxml.jackson.core.JsonFactoryBuilder;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.io.CharacterEscapes;
import com.fasterxml.jackson.core.io.SerializedString;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.weir.api.sink.FileSink;
import dev.weir.api.sink.RecordFormat;

/**
 * JSON lines (one JSON value per line, {@code .jsonl}) written by Jackson, for {@link FileSink}:
 *
 * <pre>{@code
 * stream.sink("out", FileSink.<Order>to(dir).format(JsonLinesFormat.create()));
 * }</pre>
 *
 * <p>What a record becomes: a Java record is an object of its components (in declaration order),
 * nested records too; lists, sets and arrays are arrays; maps are objects (keys as strings);
 * numbers, booleans and strings are themselves; null is {@code null}; enums are their names; other
 * classes are what Jackson makes of their getters. The output is strict JSON: {@code NaN} and the
 * infinities are written as the strings {@code "NaN"}, {@code "Infinity"} and {@code "-Infinity"}
 * (Jackson reads them back into a {@code double}), and every control character is escaped, as are
 * the line breaks outside ASCII ({@code U+0085}, {@code U+2028}, {@code U+2029}, which some line
 * readers, such as Python's {@code splitlines}, split on), so a record is always exactly one line.
 * A value Jackson cannot write (such as a {@code java.time} type, which needs Jackson's JSR-310
 * module) fails the job, naming the type.
 *
 * @param <T> record type
 */
public final class JsonLinesFormat<T> implements RecordFormat<T> {
    private static final long serialVersionUID = 1L;

    /** Made on first use on the sink's thread (not serialized with the pipeline). */
    private transient ObjectWriter writer;

    private JsonLinesFormat() {}

    /**
     * The JSON lines format.
     *
     * @param <T> record type
     * @return the format
     */
    public static <T> JsonLinesFormat<T> create() {
        return new JsonLinesFormat<>();
    }

    /**
     * The mapper this format writes with, configured as its Javadoc says; for readers too.
     *
     * @return a new mapper
     */
    public static JsonMapper mapper() {
        return JsonMapper.builder(
                        new JsonFactoryBuilder().characterEscapes(new LineBreakEscapes()).build())
                .enable(JsonWriteFeature.WRITE_NAN_AS_STRINGS)
                .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
                .build();
    }

    @Override
    public String suffix() {
        return ".jsonl";
    }

    @Override
    public String format(T record) {
        if (writer == null) {
            writer = mapper().writer();
        }
        try {
            return writer.writeValueAsString(record);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(
                    "cannot write a "
                            + record.getClass().getName()
                            + " as JSON: "
                            + e.getOriginalMessage(),
                    e);
        }
    }

    /**
     * JSON's standard escapes, plus {@code \\uXXXX} for the three non-ASCII characters that Unicode
     * treats as line breaks; every other non-ASCII character is written as is.
     */
    private static final class LineBreakEscapes extends CharacterEscapes {
        private static final long serialVersionUID = 1L;

        private static final int[] ASCII = standardAsciiEscapesForJSON();

        @Override
        public int[] getEscapeCodesForAscii() {
            return ASCII;
        }

        @Override
        public SerializableString getEscapeSequence(int ch) {
            return switch (ch) {
                case 0x0085 -> new SerializedString("\\u0085");
                case 0x2028 -> new SerializedString("\\u2028");
                case 0x2029 -> new SerializedString("\\u2029");
                default -> null;
            };
        }
    }
}
