package dev.weir.testing;

import dev.weir.api.Guarantee;
import dev.weir.api.Pipeline;
import dev.weir.api.checkpoint.CheckpointConfig;
import dev.weir.api.sink.Sink;
import dev.weir.api.sink.SinkContext;
import dev.weir.api.sink.SinkWriter;
import dev.weir.api.source.Sources;
import dev.weir.testing.KeyedCountJob.Update;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The job a crash test runs in a child JVM: {@link KeyedCountJob} over 1..N with exactly-once
 * checkpoints every 50 ms, resuming from the latest checkpoint in the given directory. Updates go
 * to one file per process and subtask, so a torn last line never mixes with the next run's.
 *
 * <p>Arguments: checkpoint directory, output directory, N, keys, records per second.
 */
public final class CrashChild {
    private CrashChild() {}

    public static void main(String[] args) throws Exception {
        Path checkpoints = Path.of(args[0]);
        Path output = Path.of(args[1]);
        long n = Long.parseLong(args[2]);
        long keys = Long.parseLong(args[3]);
        long rate = Long.parseLong(args[4]);
        Pipeline pipeline =
                Pipeline.create("crash-child")
                        .parallelism(2)
                        .checkpointing(
                                CheckpointConfig.exactlyOnce(Duration.ofMillis(50), checkpoints));
        KeyedCountJob.apply(pipeline.source("numbers", Sources.sequence(1, n, 2, rate)), keys)
                .sink("lines", new LinesSink(output));
        pipeline.run();
        System.out.println("DONE");
    }

    /** Appends each update as a line; at-least-once, which the checker tolerates. */
    static final class LinesSink implements Sink<Update> {
        private final String directory;

        LinesSink(Path directory) {
            this.directory = directory.toString();
        }

        @Override
        public String kind() {
            return "lines";
        }

        @Override
        public Guarantee guarantee() {
            return Guarantee.AT_LEAST_ONCE;
        }

        @Override
        public SinkWriter<Update> createWriter(SinkContext context) throws IOException {
            Path file =
                    Path.of(directory)
                            .resolve(
                                    "out-"
                                            + ProcessHandle.current().pid()
                                            + "-"
                                            + System.nanoTime()
                                            + "-"
                                            + context.subtaskIndex()
                                            + ".txt");
            BufferedWriter writer = Files.newBufferedWriter(file, StandardCharsets.UTF_8);
            return new SinkWriter<>() {
                private int unflushed;

                @Override
                public void write(Update record) throws IOException {
                    writer.write(record.toLine());
                    writer.write('\n');
                    if (++unflushed == 512) {
                        writer.flush();
                        unflushed = 0;
                    }
                }

                /**
                 * Before the final checkpoint: a kill after it would otherwise lose the last lines,
                 * and a run restored from it reads nothing again (a CI run once ended with every
                 * key short of its final count this way).
                 */
                @Override
                public void finish() throws IOException {
                    writer.flush();
                }

                @Override
                public void close() throws IOException {
                    writer.close();
                }
            };
        }
    }
}
