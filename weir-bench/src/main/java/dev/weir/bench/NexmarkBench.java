package dev.weir.bench;

import dev.weir.api.JobHandle;
import dev.weir.api.JobResult;
import dev.weir.api.Pipeline;
import dev.weir.api.checkpoint.CheckpointConfig;
import dev.weir.api.checkpoint.CheckpointStats;
import dev.weir.api.sink.CountingSink;
import dev.weir.api.sink.Sink;
import dev.weir.api.sink.Sinks;
import dev.weir.bench.nexmark.NexmarkConfig;
import dev.weir.bench.nexmark.WeirQueries;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * Runs one Nexmark query on Weir, exactly-once with checkpoints every {@code --interval-ms}, into a
 * discarding counting sink; prints one result line per run.
 */
@Command(name = "nexmark", description = "Runs a Nexmark query on Weir.")
public final class NexmarkBench implements Callable<Integer> {
    @Mixin NexmarkOptions options;

    @Override
    public Integer call() throws Exception {
        NexmarkConfig config = options.config();
        for (int run = 0; run < options.runs; run++) {
            Path dir = Files.createTempDirectory("weir-nexmark-");
            CountingSink<Object> sink = Sinks.counting();
            RunResources resources = new RunResources();
            JobHandle handle =
                    pipeline(options.query, config, options.p, options.intervalMs, dir, sink)
                            .start();
            JobResult result = handle.await();
            String cost = resources.fields(options.n);
            List<CheckpointStats> checkpoints = handle.checkpointStats();
            KeyedSumBench.deleteRecursively(dir);
            double seconds = result.duration().toNanos() / 1e9;
            System.out.println(
                    options.resultLine("weir", seconds, sink.count())
                            + cost
                            + String.format(Locale.ROOT, " checkpoints=%d", checkpoints.size()));
        }
        return 0;
    }

    /**
     * The pipeline of {@code query}: the Nexmark source, the query, {@code sink}; exactly-once
     * checkpoints every {@code intervalMs} into {@code dir}.
     */
    public static Pipeline pipeline(
            String query,
            NexmarkConfig config,
            int parallelism,
            long intervalMs,
            Path dir,
            Sink<Object> sink) {
        Pipeline pipeline =
                Pipeline.create("nexmark-" + query)
                        .parallelism(parallelism)
                        .checkpointing(
                                CheckpointConfig.exactlyOnce(Duration.ofMillis(intervalMs), dir));
        WeirQueries.build(query, pipeline, config).sink("out", sink);
        return pipeline;
    }
}
