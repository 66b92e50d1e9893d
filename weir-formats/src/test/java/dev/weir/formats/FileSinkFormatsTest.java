package dev.weir.formats;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.MappingIterator;
import dev.weir.api.Pipeline;
import dev.weir.api.sink.FileSink;
import dev.weir.api.source.Sources;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A pipeline writing through {@link FileSink} in each format, read back by the same library. */
class FileSinkFormatsTest {
    @TempDir Path temp;

    /** A trade, with a note that may hold anything. */
    public record Trade(String symbol, long quantity, double price, String note) {}

    static final List<Trade> TRADES =
            List.of(
                    new Trade("ACME", 5, 1.5, "plain"),
                    new Trade("X,Y", 1, Double.NaN, "say \"hi\"\r\nnow"),
                    new Trade("Z", 2, 3.0, null),
                    new Trade("", 3, -0.0, ""));

    @Test
    void csvFilesWithHeadersReadBackThroughJacksonCsv() throws Exception {
        CsvFormat<Trade> format = CsvFormat.of(Trade.class).withHeader();
        Path out = run(format, "csv");
        List<Trade> read = new ArrayList<>();
        for (Path file : finished(out)) {
            assertThat(file.toString()).endsWith(".csv");
            assertThat(Files.readString(file)).startsWith("symbol,quantity,price,note\n");
            try (MappingIterator<Trade> rows =
                    CsvFormat.mapper()
                            .readerFor(Trade.class)
                            .with(format.schema())
                            .readValues(file.toFile())) {
                read.addAll(rows.readAll());
            }
        }
        assertThat(read).isEqualTo(TRADES);
    }

    @Test
    void jsonLinesReadBackThroughJackson() throws Exception {
        Path out = run(JsonLinesFormat.create(), "json");
        List<Trade> read = new ArrayList<>();
        for (String line : FileSink.readCommitted(out)) {
            read.add(JsonLinesFormat.mapper().readValue(line, Trade.class));
        }
        assertThat(read).isEqualTo(TRADES);
        assertThat(finished(out)).allMatch(p -> p.toString().endsWith(".jsonl"));
    }

    private Path run(dev.weir.api.sink.RecordFormat<? super Trade> format, String name)
            throws Exception {
        Path out = temp.resolve(name);
        Pipeline pipeline = Pipeline.create("formats-" + name);
        pipeline.source("trades", Sources.collection(TRADES))
                .sink("out", FileSink.<Trade>to(out).format(format).rollBytes(40));
        pipeline.run();
        return out;
    }

    private static List<Path> finished(Path dir) throws Exception {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> !p.getFileName().toString().startsWith(".")).sorted().toList();
        }
    }
}
