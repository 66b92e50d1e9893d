package dev.weir.bench;

import dev.weir.bench.nexmark.FlinkQueries;
import dev.weir.bench.nexmark.NexmarkConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Queue;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * The Flink peer of {@code nexmark}: the same query as an idiomatic Flink 2.3 DataStream job in a
 * local environment (MiniCluster), exactly-once checkpoints every {@code --interval-ms} to a local
 * directory, hash-map state backend, object reuse on (as Weir never copies records), into a
 * discarding counting sink.
 */
@Command(name = "flink-nexmark", description = "Runs a Nexmark query on Apache Flink.")
public final class FlinkNexmarkBench implements Callable<Integer> {
    @Mixin NexmarkOptions options;

    static final LongAdder COUNT = new LongAdder();

    /** What {@link #collecting} sinks received, as strings, in arrival order. */
    public static final Queue<String> COLLECTED = new ConcurrentLinkedQueue<>();

    @Override
    public Integer call() throws Exception {
        NexmarkConfig config = options.config();
        for (int run = 0; run < options.runs; run++) {
            COUNT.reset();
            Path dir = Files.createTempDirectory("flink-nexmark-");
            RunResources resources = new RunResources();
            JobExecutionResult result =
                    run(options.query, config, options.p, options.intervalMs, dir, false);
            String cost = resources.fields(options.n);
            KeyedSumBench.deleteRecursively(dir);
            double seconds = result.getNetRuntime(TimeUnit.MICROSECONDS) / 1e6;
            System.out.println(options.resultLine("flink", seconds, COUNT.sum()) + cost);
        }
        return 0;
    }

    /**
     * Runs {@code query} on a local Flink cluster; its results go to {@link #COLLECTED} (as
     * strings) if {@code collect}, else they are only counted.
     */
    public static JobExecutionResult run(
            String query,
            NexmarkConfig config,
            int parallelism,
            long intervalMs,
            Path dir,
            boolean collect)
            throws Exception {
        Configuration conf = new Configuration();
        conf.set(StateBackendOptions.STATE_BACKEND, "hashmap");
        conf.set(CheckpointingOptions.CHECKPOINT_STORAGE, "filesystem");
        conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, dir.resolve("chk").toUri().toString());
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.createLocalEnvironment(parallelism, conf);
        env.getConfig().enableObjectReuse();
        env.enableCheckpointing(intervalMs, CheckpointingMode.EXACTLY_ONCE);
        @SuppressWarnings("unchecked")
        DataStream<Object> results =
                (DataStream<Object>) FlinkQueries.build(query, env, config, parallelism);
        results.sinkTo(new ResultSink(collect));
        return env.execute("nexmark-" + query);
    }

    /** Counts what it receives, or collects it as strings; the count is read after the job. */
    static final class ResultSink implements Sink<Object> {
        private static final long serialVersionUID = 1L;
        private final boolean collect;

        ResultSink(boolean collect) {
            this.collect = collect;
        }

        @Override
        public SinkWriter<Object> createWriter(WriterInitContext context) {
            return new SinkWriter<>() {
                private long count;

                @Override
                public void write(Object element, Context context) {
                    count++;
                    if (collect) {
                        COLLECTED.add(element.toString());
                    }
                }

                @Override
                public void flush(boolean endOfInput) {}

                @Override
                public void close() {
                    COUNT.add(count);
                }
            };
        }
    }
}
