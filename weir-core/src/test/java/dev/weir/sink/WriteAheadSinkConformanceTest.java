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
 * A write-ahead sink writing each checkpoint's records to a plain file per subtask and checkpoint
 * (a system without transactions), through the whole sink conformance suite. Sending a checkpoint
 * again rewrites the same file: that is how {@link WriteAheadSink} asks {@code send} to be
 * idempotent, to close the window between a send and the record of it (another subtask may be
 * killed inside it while one reaches a fault point).
 */
public class WriteAheadSinkConformanceTest extends ExactlyOnceSinkConformance {
    /** Writes each checkpoint's records to {@code out-<subtask>-<checkpoint>.txt}. */
    public static final class AppendingSink extends WriteAheadSink<String> {
        private final String output;

        public AppendingSink(Path output) {
            super(output.resolve(".progress"), Codecs.STRING);
            this.output = output.toString();
        }

        @Override
        public String kind() {
            return "checkpoint-files";
        }

        @Override
        protected void send(List<String> records, long checkpointId, SinkContext context)
                throws Exception {
            StringBuilder text = new StringBuilder();
            for (String record : records) {
                text.append(record).append('\n');
            }
            Files.writeString(
                    Path.of(output)
                            .resolve("out-" + context.subtaskIndex() + "-" + checkpointId + ".txt"),
                    text,
                    StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE,
                    StandardOpenOption.TRUNCATE_EXISTING,
                    StandardOpenOption.WRITE);
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
