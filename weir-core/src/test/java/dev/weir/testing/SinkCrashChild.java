package dev.weir.testing;

import dev.weir.api.Pipeline;
import dev.weir.api.checkpoint.CheckpointConfig;
import dev.weir.api.sink.FileSink;
import dev.weir.api.source.Sources;
import dev.weir.sink.WriteAheadSinkConformanceTest;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Runs the sink conformance job (numbers 1..N as lines into a FileSink, checkpoints every 20 ms)
 * and exits. Arguments: checkpoint directory, output directory, N, sink kind ({@code file} or
 * {@code write-ahead}).
 */
public final class SinkCrashChild {
    private SinkCrashChild() {}

    public static void main(String[] args) throws Exception {
        Pipeline pipeline =
                Pipeline.create("sink-crash")
                        .parallelism(2)
                        .checkpointing(
                                CheckpointConfig.exactlyOnce(
                                        Duration.ofMillis(20), Path.of(args[0])));
        pipeline.source("numbers", Sources.sequence(1, Long.parseLong(args[2]), 2, 50_000))
                .map(n -> Long.toString(n))
                .sink(
                        "out",
                        args.length > 3 && args[3].equals("write-ahead")
                                ? new WriteAheadSinkConformanceTest.AppendingSink(Path.of(args[1]))
                                : FileSink.<String>to(Path.of(args[1])).rollBytes(4096))
                .parallelism(3);
        pipeline.run();
    }
}
