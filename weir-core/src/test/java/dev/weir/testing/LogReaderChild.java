package dev.weir.testing;

import dev.weir.api.Pipeline;
import dev.weir.api.checkpoint.CheckpointConfig;
import dev.weir.api.codec.Codecs;
import dev.weir.api.sink.FileSink;
import dev.weir.api.source.Sources;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Job 2 of the chained-jobs test: log topic "mid" (read-committed) into a FileSink, checkpoints
 * every 10 ms; slowed to 20 µs a record so a kill lands mid-run. Arguments: log directory,
 * checkpoint directory, output directory.
 */
public final class LogReaderChild {
    private LogReaderChild() {}

    public static void main(String[] args) throws Exception {
        Pipeline job2 =
                Pipeline.create("job2")
                        .parallelism(2)
                        .checkpointing(
                                CheckpointConfig.exactlyOnce(
                                        Duration.ofMillis(10), Path.of(args[1])));
        job2.source("from-log", Sources.log(Path.of(args[0]), "mid", Codecs.LONG))
                .map(
                        n -> {
                            java.util.concurrent.locks.LockSupport.parkNanos(20_000);
                            return Long.toString(n);
                        })
                .sink("out", FileSink.<String>to(Path.of(args[2])).rollBytes(2048));
        job2.run();
    }
}
