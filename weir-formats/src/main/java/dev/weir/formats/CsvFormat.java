package dev.weir.formats;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.dataformat.csv.CsvGenerator;
import com.fasterxml.jackson.dataformat.csv.CsvMapper;
import com.fasterxml.jackson.dataformat.csv.CsvParser;
import com.fasterxml.jackson.dataformat.csv.CsvSchema;
import dev.weir.api.sink.FileSink;
import dev.weir.api.sink.RecordFormat;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * CSV (RFC 4180) written by Jackson's CSV dataformat, for {@link FileSink}: one row per Java
 * record, its components as columns in declaration order.
 *
 * <pre>{@code
 * stream.sink("out", FileSink.<Order>to(dir).format(CsvFormat.of(Order.class).withHeader()));
 * }</pre>
 *
 * <ul>
 *   <li><b>Quoting.</b> A field holding the separator, a double quote, {@code \r} or {@code \n} is
 *       quoted, inner quotes doubled. A quoted line break stays in the file: read such files with a
 *       CSV parser (such as {@link #schema()} with {@link #mapper()}), not line by line.
 *   <li><b>Header.</b> Off by default; {@link #withHeader()} writes the column names as the first
 *       row of every file (each file stands alone).
 *   <li><b>Null.</b> A null component is an empty, unquoted field; an empty string is {@code ""}
 *       (quoted), so the two stay apart. {@link #withNullAs(String)} writes null as another text
 *       (such as {@code \N}; unquoted, so it cannot hold the separator, a quote or a line break).
 *       {@link #mapper()} reads both back as written.
 *   <li><b>Separator.</b> A comma unless {@link #withSeparator(char)} says otherwise; numbers and
 *       booleans are written unquoted, so letters, digits, {@code .}, {@code -} and {@code +} are
 *       refused as separators.
 *   <li><b>Values.</b> Strings, numbers (NaN and infinities as Java prints them), booleans and
 *       enums (their names); a list or array of those is one field, its elements joined by {@code
 *       ;}. A nested record or map cannot be a CSV field: it fails the job, naming the type (use
 *       {@link JsonLinesFormat}).
 * </ul>
 *
 * @param <T> record type
 */
public final class CsvFormat<T> implements RecordFormat<T> {
    private static final long serialVersionUID = 1L;

    /** The column names, in order. */
    private final List<String> columns;

    /** Whether every file starts with a header row. */
    private final boolean header;

    /** The field separator. */
    private final char separator;

    /** The text written for null (empty: an empty, unquoted field). */
    private final String nullText;

    /** Made on first use on the sink's thread (not serialized with the pipeline). */
    private transient ObjectWriter writer;

    /** The record's list and array components, found on first use (not serialized). */
    private transient List<RecordComponent> listColumns;

    private CsvFormat(List<String> columns, boolean header, char separator, String nullText) {
        this.columns = List.copyOf(columns);
        this.header = header;
        this.separator = separator;
        this.nullText = Objects.requireNonNull(nullText, "nullText");
    }

    /**
     * Rows of {@code type}'s components, comma separated, no header, null as an empty field.
     *
     * @param type the record class whose components are the columns
     * @param <R> record type
     * @return the format
     * @throws IllegalArgumentException if the record has no components
     */
    public static <R extends Record> CsvFormat<R> of(Class<R> type) {
        List<String> columns = new ArrayList<>();
        for (RecordComponent component : type.getRecordComponents()) {
            columns.add(component.getName());
        }
        if (columns.isEmpty()) {
            throw new IllegalArgumentException(type.getName() + " has no components to write");
        }
        return new CsvFormat<>(columns, false, ',', "");
    }

    /**
     * Writes the column names as the first row of every file.
     *
     * @return a copy of this format with a header
     */
    public CsvFormat<T> withHeader() {
        return new CsvFormat<>(columns, true, separator, nullText);
    }

    /**
     * Separates fields with {@code separator} (such as {@code ';'} or {@code '\t'}).
     *
     * <p>Numbers, booleans and the null text are written unquoted, so a separator that can occur in
     * them would split a field in two: it is refused.
     *
     * @param separator any character but a letter, a digit, {@code .}, {@code -}, {@code +}, a
     *     double quote or a line break
     * @return a copy of this format with that separator
     * @throws IllegalArgumentException if the separator is one of those
     */
    public CsvFormat<T> withSeparator(char separator) {
        String why = null;
        if (separator == '"' || separator == '\r' || separator == '\n') {
            why = "a quote or line break would break the CSV quoting";
        } else if (Character.isLetterOrDigit(separator)
                || separator == '.'
                || separator == '-'
                || separator == '+') {
            why = "it can occur in numbers and booleans, which are written unquoted";
        }
        if (why != null) {
            throw new IllegalArgumentException(
                    "CSV separator '" + printable(separator) + "' is refused: " + why);
        }
        if (nullText.indexOf(separator) >= 0) {
            throw new IllegalArgumentException(
                    "CSV separator '"
                            + printable(separator)
                            + "' occurs in the null text \""
                            + nullText
                            + "\", which is written unquoted");
        }
        return new CsvFormat<>(columns, header, separator, nullText);
    }

    /**
     * Writes null as {@code text} (default: an empty, unquoted field).
     *
     * <p>The text is written unquoted, so it cannot hold the separator, a double quote, {@code \r}
     * or {@code \n}, and cannot look like a number or a boolean (also written unquoted). A string
     * value equal to the null text reads back as null: choose a marker your strings never hold.
     *
     * @param text what a null component becomes, such as {@code \N}
     * @return a copy of this format writing null so
     * @throws IllegalArgumentException if the text holds the separator, a quote or a line break, or
     *     reads as a number or a boolean
     */
    public CsvFormat<T> withNullAs(String text) {
        Objects.requireNonNull(text, "text");
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == separator || c == '"' || c == '\r' || c == '\n') {
                throw new IllegalArgumentException(
                        "CSV null text \""
                                + text.replace("\r", "\\r").replace("\n", "\\n")
                                + "\" is refused: it holds '"
                                + printable(c)
                                + "' and is written unquoted, so it would break the row into"
                                + " other fields");
            }
        }
        if (looksLikeAValue(text)) {
            throw new IllegalArgumentException(
                    "CSV null text \""
                            + text
                            + "\" is refused: numbers and booleans are written unquoted too, so"
                            + " it could not be told from a value; use empty text (the default) or"
                            + " a marker such as \\N");
        }
        return new CsvFormat<>(columns, header, separator, text);
    }

    /** True if {@code text} could be a number or a boolean as this format writes them. */
    private static boolean looksLikeAValue(String text) {
        if (text.equalsIgnoreCase("true") || text.equalsIgnoreCase("false")) {
            return true;
        }
        if (text.equals("NaN") || text.endsWith("Infinity")) {
            return true;
        }
        try {
            new java.math.BigDecimal(text.strip());
            return true;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    private static String printable(char c) {
        return switch (c) {
            case '\r' -> "\\r";
            case '\n' -> "\\n";
            case '\t' -> "\\t";
            default -> String.valueOf(c);
        };
    }

    /**
     * The columns, in order.
     *
     * @return the record's component names
     */
    public List<String> columns() {
        return columns;
    }

    /**
     * The schema this format writes: columns, separator, null text, header if asked for.
     *
     * @return a Jackson CSV schema, for reading the files with {@link #mapper()}
     */
    public CsvSchema schema() {
        CsvSchema.Builder builder = CsvSchema.builder();
        columns.forEach(builder::addColumn);
        builder.setColumnSeparator(separator).setUseHeader(header).setLineSeparator("\n");
        if (!nullText.isEmpty()) {
            // An empty null text is Jackson's default; set, it would make a quoted "" read as
            // null too, where EMPTY_UNQUOTED_STRING_AS_NULL keeps the two apart.
            builder.setNullValue(nullText);
        }
        return builder.build();
    }

    /**
     * The mapper this format writes with; reading with it and {@link #schema()} gives back what was
     * written (an unquoted empty field as null, a quoted one as the empty string).
     *
     * @return a new mapper
     */
    public static CsvMapper mapper() {
        return CsvMapper.builder()
                .enable(CsvGenerator.Feature.ALWAYS_QUOTE_EMPTY_STRINGS)
                .enable(CsvParser.Feature.EMPTY_UNQUOTED_STRING_AS_NULL)
                .build();
    }

    @Override
    public String suffix() {
        return ".csv";
    }

    @Override
    public String header() {
        if (!header) {
            return null;
        }
        Map<String, String> names = new LinkedHashMap<>();
        columns.forEach(column -> names.put(column, column));
        return strip(write(names, schema().withoutHeader()));
    }

    @Override
    public String format(T record) {
        if (writer == null) {
            writer = mapper().writer(schema().withoutHeader());
        }
        requireNoSeparatorInElements(record);
        return strip(write(record, null));
    }

    /**
     * Refuses a list element that contains {@code ;}: it would read back as two elements, so the
     * data would change on the way. The job fails naming the column and the element.
     */
    private void requireNoSeparatorInElements(T record) {
        if (listColumns == null) {
            List<RecordComponent> found = new ArrayList<>();
            if (record.getClass().isRecord()) {
                for (RecordComponent c : record.getClass().getRecordComponents()) {
                    if (java.util.Collection.class.isAssignableFrom(c.getType())
                            || (c.getType().isArray() && c.getType() != byte[].class)) {
                        c.getAccessor().setAccessible(true);
                        found.add(c);
                    }
                }
            }
            listColumns = found;
        }
        for (RecordComponent column : listColumns) {
            Object value;
            try {
                value = column.getAccessor().invoke(record);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("cannot read " + column.getName(), e);
            }
            Iterable<?> elements =
                    value instanceof Iterable<?> iterable
                            ? iterable
                            : value != null
                                            && value.getClass().isArray()
                                            && value instanceof Object[] array
                                    ? java.util.Arrays.asList(array)
                                    : List.of();
            for (Object element : elements) {
                if (element != null && String.valueOf(element).indexOf(';') >= 0) {
                    throw new IllegalArgumentException(
                            "CSV column '"
                                    + column.getName()
                                    + "': list element '"
                                    + element
                                    + "' contains ';', which separates the elements of a list"
                                    + " field, so it would read back as more elements; write such"
                                    + " values with JsonLinesFormat");
                }
            }
        }
    }

    private String write(Object value, CsvSchema schema) {
        try {
            return schema == null
                    ? writer.writeValueAsString(value)
                    : mapper().writer(schema).writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(
                    "cannot write a "
                            + value.getClass().getName()
                            + " as a CSV row of "
                            + columns
                            + ": "
                            + e.getOriginalMessage(),
                    e);
        }
    }

    /** Drops the row's line end: the sink ends each record with a line feed. */
    private static String strip(String row) {
        return row.endsWith("\n") ? row.substring(0, row.length() - 1) : row;
    }
}
