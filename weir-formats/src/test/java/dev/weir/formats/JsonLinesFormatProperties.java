package dev.weir.formats;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/** JSON lines written by {@link JsonLinesFormat} read back by Jackson, strictly. */
class JsonLinesFormatProperties {
    /** A record with what JSON must get right: text, special doubles, lists, maps, nesting. */
    public record Event(
            String name,
            double value,
            long count,
            Boolean flag,
            List<String> tags,
            Map<String, Long> counts,
            Point at) {}

    /** A nested record. */
    public record Point(int x, int y) {}

    /** Parses strictly: no NaN tokens, no unescaped control characters. */
    private static final JsonMapper STRICT =
            JsonMapper.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();

    @Property(tries = 300)
    void aRecordReadsBackEqualFromOneStrictJsonLine(@ForAll("events") Event event)
            throws Exception {
        String line = JsonLinesFormat.<Event>create().format(event);

        assertThat(line).doesNotContain("\n", "\r", "\u0085", "\u2028", "\u2029");
        JsonNode tree = STRICT.readTree(line); // fails on NaN tokens or raw control characters
        assertThat(tree.isObject()).isTrue();
        assertThat(tree.get("tags").isArray()).isTrue();
        assertThat(tree.get("counts").isObject()).isTrue();
        assertThat(tree.get("at").isObject() || tree.get("at").isNull()).isTrue();
        assertThat(STRICT.readValue(line, Event.class)).isEqualTo(event);
    }

    @Test
    void nanAndInfinitiesAreStringsAndOtherValuesKeepTheirJsonTypes() throws Exception {
        JsonLinesFormat<Object> format = JsonLinesFormat.create();
        assertThat(format.format(new Point(1, 2))).isEqualTo("{\"x\":1,\"y\":2}");
        assertThat(format.format(Double.NaN)).isEqualTo("\"NaN\"");
        assertThat(format.format(Double.NEGATIVE_INFINITY)).isEqualTo("\"-Infinity\"");
        assertThat(format.format(List.of(1, 2))).isEqualTo("[1,2]");
        assertThat(format.format(Map.of("a", List.of()))).isEqualTo("{\"a\":[]}");
        assertThat(format.format("line\nbreak\u0001")).isEqualTo("\"line\\nbreak\\u0001\"");
        assertThat(format.suffix()).isEqualTo(".jsonl");
        assertThat(format.header()).isNull();
    }

    @Test
    void unicodeLineBreaksAreEscapedSoEveryLineReaderSeesOneLine() throws Exception {
        JsonLinesFormat<Object> format = JsonLinesFormat.create();
        String text = "a\u0085b\u2028c\u2029d \u00e9 \uD83D\uDE00";
        String line = format.format(Map.of(text, List.of(text)));

        assertThat(line)
                .isEqualTo(
                        "{\"a\\u0085b\\u2028c\\u2029d \u00e9 \uD83D\uDE00\":"
                                + "[\"a\\u0085b\\u2028c\\u2029d \u00e9 \uD83D\uDE00\"]}");
        assertThat(line.lines()).hasSize(1);
        assertThat(STRICT.readValue(line, new TypeReference<Map<String, List<String>>>() {}))
                .isEqualTo(Map.of(text, List.of(text)));
    }

    @Provide
    Arbitrary<Event> events() {
        Arbitrary<String> text =
                Arbitraries.oneOf(
                        Arbitraries.strings().all().ofMaxLength(20),
                        Arbitraries.strings().withChars("\u0085\u2028\u2029\n\ra").ofMaxLength(6));
        Arbitrary<Double> doubles =
                Arbitraries.oneOf(
                        Arbitraries.doubles(),
                        Arbitraries.of(
                                Double.NaN,
                                Double.POSITIVE_INFINITY,
                                Double.NEGATIVE_INFINITY,
                                -0.0,
                                Double.MIN_VALUE,
                                Double.MAX_VALUE));
        Arbitrary<Point> points =
                Combinators.combine(Arbitraries.integers(), Arbitraries.integers())
                        .as(Point::new)
                        .injectNull(0.2);
        return Combinators.combine(
                        text.injectNull(0.1),
                        doubles,
                        Arbitraries.longs(),
                        Arbitraries.of(true, false).injectNull(0.3),
                        text.list().ofMaxSize(4),
                        Arbitraries.maps(text, Arbitraries.longs()).ofMaxSize(3),
                        points)
                .as(Event::new);
    }
}
