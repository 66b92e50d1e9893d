package dev.weir.formats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.MappingIterator;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/** CSV rows written by {@link CsvFormat} read back by Jackson's CSV parser with its schema. */
class CsvFormatProperties {
    /** A row with what CSV must get right: separators, quotes, line breaks, nulls, numbers. */
    public record Row(String name, String note, long count, double value, Boolean flag) {}

    @Property(tries = 300)
    void rowsReadBackEqualWithOrWithoutHeaderAndAnySeparator(
            @ForAll("rows") List<Row> rows,
            @ForAll boolean header,
            @ForAll("separators") char separator)
            throws Exception {
        CsvFormat<Row> format = CsvFormat.of(Row.class).withSeparator(separator);
        format = header ? format.withHeader() : format;

        assertThat(readBack(format, write(format, rows))).isEqualTo(rows);
    }

    @Property(tries = 100)
    void aChosenNullTextReadsBackAsNull(@ForAll("rows") List<Row> rows) throws Exception {
        CsvFormat<Row> format = CsvFormat.of(Row.class).withNullAs("\\N").withHeader();
        List<Row> withoutTheNullText =
                rows.stream()
                        .filter(r -> !"\\N".equals(r.name()) && !"\\N".equals(r.note()))
                        .toList();

        assertThat(readBack(format, write(format, withoutTheNullText)))
                .isEqualTo(withoutTheNullText);
    }

    @Test
    void quotesSeparatorsQuotesAndLineBreaksAndKeepsNullApartFromEmpty() {
        CsvFormat<Row> format = CsvFormat.of(Row.class).withHeader();
        assertThat(format.header()).isEqualTo("name,note,count,value,flag");
        assertThat(format.format(new Row("a,b", "say \"hi\"", 1, 0.5, true)))
                .isEqualTo("\"a,b\",\"say \"\"hi\"\"\",1,0.5,true");
        assertThat(format.format(new Row("cr\rlf\n", "", -1, Double.NaN, null)))
                .isEqualTo("\"cr\rlf\n\",\"\",-1,NaN,");
        assertThat(format.format(new Row(null, "x", 0, 1e300, false)))
                .isEqualTo(",x,0,1.0E300,false");
        assertThat(format.suffix()).isEqualTo(".csv");
        assertThat(CsvFormat.of(Row.class).header()).isNull();
    }

    @Property(tries = 300)
    void anySeparatorIsRefusedOrReadsBackEqual(
            @ForAll("rows") List<Row> rows, @ForAll("anySeparator") char separator)
            throws Exception {
        CsvFormat<Row> format;
        try {
            format = CsvFormat.of(Row.class).withSeparator(separator).withHeader();
        } catch (IllegalArgumentException refused) {
            assertThat(refused).hasMessageContaining("separator");
            return;
        }
        assertThat(readBack(format, write(format, rows))).isEqualTo(rows);
    }

    @Property(tries = 300)
    void anyNullTextIsRefusedOrReadsBackAsNull(
            @ForAll("rows") List<Row> rows,
            @ForAll("nullTexts") String nullText,
            @ForAll("separators") char separator)
            throws Exception {
        CsvFormat<Row> format;
        try {
            format = CsvFormat.of(Row.class).withSeparator(separator).withNullAs(nullText);
        } catch (IllegalArgumentException refused) {
            assertThat(refused).hasMessageContaining("null text");
            return;
        }
        List<Row> withoutTheNullText =
                rows.stream()
                        .filter(r -> !nullText.equals(r.name()) && !nullText.equals(r.note()))
                        .toList();
        assertThat(readBack(format, write(format, withoutTheNullText)))
                .isEqualTo(withoutTheNullText);
    }

    @Test
    void aNullTextThatWouldSplitTheRowIsRefused() {
        for (String text : List.of("a,b", "\"", "x\ny", "x\ry")) {
            assertThatThrownBy(() -> CsvFormat.of(Row.class).withNullAs(text))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("null text")
                    .hasMessageContaining("unquoted");
        }
        assertThatThrownBy(() -> CsvFormat.of(Row.class).withSeparator(';').withNullAs("a;b"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CsvFormat.of(Row.class).withNullAs("a;b").withSeparator(';'))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("null text");
        // The breaker's example: three fields stay three.
        assertThat(
                        CsvFormat.of(Row.class)
                                .withNullAs("NULL")
                                .format(new Row(null, "a,b", 1, 1, null)))
                .isEqualTo("NULL,\"a,b\",1,1.0,NULL");
    }

    @Test
    void aSeparatorThatCanOccurInAnUnquotedNumberOrBooleanIsRefused() throws Exception {
        for (char separator : "E1N0-+.ae\"\r\n".toCharArray()) {
            assertThatThrownBy(() -> CsvFormat.of(Row.class).withSeparator(separator))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("separator");
        }
        CsvFormat<Row> format = CsvFormat.of(Row.class).withSeparator(' ');
        List<Row> rows = List.of(new Row("a b", null, -3, 1.5e300, true));
        assertThat(readBack(format, write(format, rows))).isEqualTo(rows);
    }

    @Test
    void aNullTextThatCouldBeANumberOrABooleanIsRefused() {
        for (String text : List.of("1", "-2.5", "true", "FALSE", "NaN", "-Infinity", "1e3")) {
            assertThatThrownBy(() -> CsvFormat.of(Row.class).withNullAs(text))
                    .as(text)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("could not be told from a value");
        }
    }

    /** A record with a list column. */
    public record Tagged(String name, List<String> tags) {}

    @Test
    void aListElementHoldingTheElementSeparatorIsRefusedNamingTheColumn() {
        CsvFormat<Tagged> format = CsvFormat.of(Tagged.class);
        assertThat(format.format(new Tagged("x", List.of("a", "b")))).isEqualTo("x,a;b");
        assertThatThrownBy(() -> format.format(new Tagged("x", List.of("a", "b;c", "d"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'tags'")
                .hasMessageContaining("'b;c'");
    }

    /** A record whose component is another record. */
    public record Nested(Row row) {}

    @Test
    void aNestedRecordIsRefusedNamingTheType() {
        assertThatThrownBy(
                        () ->
                                CsvFormat.of(Nested.class)
                                        .format(new Nested(new Row("a", "b", 1, 1, true))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(Nested.class.getName())
                .hasMessageContaining("[row]");
    }

    static String write(CsvFormat<Row> format, List<Row> rows) {
        StringBuilder file = new StringBuilder();
        if (format.header() != null) {
            file.append(format.header()).append('\n');
        }
        for (Row row : rows) {
            file.append(format.format(row)).append('\n');
        }
        return file.toString();
    }

    static List<Row> readBack(CsvFormat<Row> format, String file) throws Exception {
        List<Row> read = new ArrayList<>();
        try (MappingIterator<Row> it =
                CsvFormat.mapper().readerFor(Row.class).with(format.schema()).readValues(file)) {
            while (it.hasNext()) {
                read.add(it.next());
            }
        }
        return read;
    }

    @Provide
    Arbitrary<List<Row>> rows() {
        Arbitrary<String> text =
                Arbitraries.oneOf(
                        Arbitraries.strings().all().ofMaxLength(12),
                        Arbitraries.strings().withChars(",;\t\"\r\n a").ofMaxLength(6));
        Arbitrary<Double> doubles =
                Arbitraries.oneOf(
                        Arbitraries.doubles(),
                        Arbitraries.of(Double.NaN, Double.POSITIVE_INFINITY, -0.0));
        return Combinators.combine(
                        text.injectNull(0.15),
                        text.injectNull(0.15),
                        Arbitraries.longs(),
                        doubles,
                        Arbitraries.of(true, false).injectNull(0.2))
                .as(Row::new)
                .list()
                .ofMaxSize(5);
    }

    @Provide
    Arbitrary<Character> anySeparator() {
        return Arbitraries.oneOf(
                Arbitraries.chars(),
                Arbitraries.chars().ascii(),
                Arbitraries.of('.', 'E', 'N', '1', '-', '+', 'e', ' ', '\\', '#', '\'', '\t'));
    }

    @Provide
    Arbitrary<String> nullTexts() {
        return Arbitraries.strings().withChars(",;|\t\"\r\n\\x").ofMinLength(1).ofMaxLength(4);
    }

    @Provide
    Arbitrary<Character> separators() {
        return Arbitraries.of(',', ';', '\t', '|');
    }
}
