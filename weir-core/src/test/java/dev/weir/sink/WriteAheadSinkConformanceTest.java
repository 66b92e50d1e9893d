package dev.weir.sink;

import dev.weir.api.codec.Codecs;
import dev.weir.api.sink.Sink;
import dev.weir.api.sink.SinkContext;
import dev.weir.api.sink.WriteAheadSink;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * A write-ahead sink appending each checkpoint's records to a plain file per subtask (a system
 * without transactions), through the whole sink conformance suite.
 */
public class WriteAheadSinkConformanceTest extends ExactlyOnceSinkConformance {
    /** Appends each checkpoint's records to a plain file per subtask. */
    public static final class AppendingSink extends WriteAheadSink<String> {
        private final String output;

        public AppendingSink(Path output) {
            super(output.resolve(".progress"), Codecs.STRING);
            this.output = output.toString();
        }

        @Override
        public String kind() {
            return "appending-file";
        }

        @Override
        protected void send(List<String> records, long checkpointId, SinkContext context)
                throws Exception {
            StringBuilder text = new StringBuilder();
            for (String record : records) {
                text.append(record).append('\n');
            }
            Files.writeString(
                    Path.of(output).resolve("out-" + context.subtaskIndex() + ".txt"),
                    text,
                    StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
        }
    }

    @Override
    protected Sink<String> createSink(Path output) {
        return new AppendingSink(output);
    }

    @Override
    protected List<String> readCommitted(Path output) throws Exception {
        List<String> lines = new ArrayList<>();
        try (Stream<Path> files = Files.list(output)) {
            for (Path file :
                    files.filter(p -> p.getFileName().toString().startsWith("out-")).toList()) {
                lines.addAll(Files.readAllLines(file));
            }
        }
        return lines;
    }

    @Override
    protected List<String> dangling(Path output) {
        return List.of();
    }
}
