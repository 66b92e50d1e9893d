package dev.weir.testing;

import dev.weir.api.Pipeline;
import dev.weir.api.checkpoint.CheckpointConfig;
import dev.weir.api.codec.Codecs;
import dev.weir.api.log.DurableLog;
import dev.weir.api.log.LogOptions;
import dev.weir.api.sink.LogSink;
import dev.weir.api.source.Sources;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Job 1 of the chained-jobs test: numbers 1..N into log topic "mid" (2 partitions) through LogSink,
 * checkpoints every 20 ms. Arguments: log directory, checkpoint directory, N.
 */
public final class LogSinkChild {
    private LogSinkChild() {}

    public static void main(String[] args) throws Exception {
        run(Path.of(args[0]), Path.of(args[1]), Long.parseLong(args[2]));
    }

    public static void run(Path log, Path checkpoints, long n) throws Exception {
        try (DurableLog durable = DurableLog.open(log, LogOptions.defaults())) {
            durable.createTopic("mid", 2);
        }
        Pipeline pipeline =
                Pipeline.create("job1")
                        .parallelism(2)
                        .checkpointing(
                                CheckpointConfig.exactlyOnce(Duration.ofMillis(20), checkpoints));
        pipeline.source("numbers", Sources.sequence(1, n, 2, 50_000))
                .sink("to-log", LogSink.to(log, "mid", Codecs.LONG).partitionBy(v -> v))
                .parallelism(3);
        pipeline.run();
    }
}
