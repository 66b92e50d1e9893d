package dev.weir.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.serialization.SimpleStringEncoder;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.connector.file.sink.FileSink;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.functions.sink.filesystem.bucketassigners.BasePathBucketAssigner;
import org.apache.flink.streaming.api.functions.sink.filesystem.rollingpolicies.OnCheckpointRollingPolicy;
import org.apache.flink.util.Collector;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * The Flink peer of {@code keyed-sum}: the same job, idiomatic Flink 2.3 in a local environment
 * (MiniCluster). Source {@code fromSequence(1, N)} → {@code keyBy(n % K)} → a {@link
 * KeyedProcessFunction} keeping the running sum in {@code ValueState<Long>} on the hash-map state
 * backend → a counting discarding sink (which checks it saw N updates) or Flink's exactly-once
 * {@link FileSink} of lines. Object reuse is on, as Weir never copies records between steps.
 * Checkpoints go to a file-system directory, like Weir's.
 */
@Command(
        name = "flink-keyed-sum",
        description = "The keyed running-sum job on Apache Flink (the peer of keyed-sum).")
public final class FlinkKeyedSumBench implements Callable<Integer> {
    @Mixin KeyedSumOptions job;

    static final LongAdder COUNT = new LongAdder();
    static final AtomicLong FAILED_AT_NANOS = new AtomicLong();
    static final AtomicLong RECOVERED_AT_NANOS = new AtomicLong();
    static volatile boolean restored;

    @Override
    public Integer call() throws Exception {
        CheckpointingMode checkpointing =
                switch (job.mode) {
                    case "none" -> null;
                    case "alo" -> CheckpointingMode.AT_LEAST_ONCE;
                    case "eo" -> CheckpointingMode.EXACTLY_ONCE;
                    default ->
                            throw new IllegalArgumentException(
                                    "unknown --mode '" + job.mode + "'; use none, alo or eo");
                };
        for (int run = 0; run < job.runs; run++) {
            runOnce(checkpointing);
        }
        return 0;
    }

    private void runOnce(CheckpointingMode checkpointing) throws Exception {
        COUNT.reset();
        FAILED_AT_NANOS.set(0);
        RECOVERED_AT_NANOS.set(0);
        restored = false;
        Path dir = Files.createTempDirectory("flink-bench-");
        Configuration conf = new Configuration();
        conf.set(StateBackendOptions.STATE_BACKEND, "hashmap");
        conf.set(CheckpointingOptions.CHECKPOINT_STORAGE, "filesystem");
        conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, dir.resolve("chk").toUri().toString());
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 1);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ZERO);
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.createLocalEnvironment(job.p, conf);
        env.getConfig().enableObjectReuse();
        if (checkpointing != null) {
            env.enableCheckpointing(job.intervalMs, checkpointing);
        }
        long keys = job.k;
        DataStream<Long> sums =
                job.multi()
                        ? multiStage(env.fromSequence(1, job.n), keys)
                        : env.fromSequence(1, job.n)
                                .keyBy(value -> value % keys, Types.LONG)
                                .process(new RunningSum(job.failAt))
                                .returns(Types.LONG);
        Path out = dir.resolve("out");
        if (job.sinkKind.equals("file")) {
            sums.sinkTo(
                    FileSink.forRowFormat(
                                    org.apache.flink.core.fs.Path.fromLocalFile(out.toFile()),
                                    new SimpleStringEncoder<Long>())
                            .withBucketAssigner(new BasePathBucketAssigner<>())
                            .withRollingPolicy(OnCheckpointRollingPolicy.build())
                            .build());
        } else if (job.sinkKind.equals("discard")) {
            sums.sinkTo(new CountingSink());
        } else {
            throw new IllegalArgumentException(
                    "unknown --sink " + job.sinkKind + "; use discard or file");
        }
        RunResources resources = new RunResources();
        JobExecutionResult result = env.execute("keyed-sum");
        String cost = resources.fields(job.n);
        double seconds = result.getNetRuntime(TimeUnit.MICROSECONDS) / 1e6;
        if (job.failAt == 0
                && job.sinkKind.equals("discard")
                && COUNT.sum() != job.expectedOutputs()) {
            throw new IllegalStateException(
                    "expected " + job.expectedOutputs() + " updates, sink saw " + COUNT.sum());
        }
        if (job.failAt == 0 && job.sinkKind.equals("file")) {
            OutputCheck.expectLines(out, job.expectedOutputs());
        }
        KeyedSumBench.deleteRecursively(dir);
        StringBuilder line = new StringBuilder(job.resultLine("flink", "", seconds));
        line.append(cost);
        if (job.failAt > 0) {
            line.append(
                    String.format(
                            Locale.ROOT,
                            " recovery_ms=%.1f",
                            (RECOVERED_AT_NANOS.get() - FAILED_AT_NANOS.get()) / 1e6));
        }
        System.out.println(line);
    }

    /**
     * The multi-stage shape, idiomatic Flink: map, filter, keyBy into the running sum, keyBy into a
     * rolling {@code reduce} (Flink keeps its value in keyed state, as Weir's does).
     */
    static DataStream<Long> multiStage(DataStream<Long> numbers, long keys) {
        return numbers.map(n -> n * 3)
                .returns(Types.LONG)
                .filter(n -> n % 5 != 0)
                .keyBy(value -> value % keys, Types.LONG)
                .process(new RunningSum(0))
                .returns(Types.LONG)
                .keyBy(sum -> sum % keys, Types.LONG)
                .reduce((a, b) -> a + b)
                .returns(Types.LONG);
    }

    /** The running sum per key, in keyed {@code ValueState<Long>}; optionally fails once. */
    static final class RunningSum extends KeyedProcessFunction<Long, Long, Long> {
        private static final long serialVersionUID = 1L;
        private final long failAt;
        private transient ValueState<Long> sum;

        RunningSum(long failAt) {
            this.failAt = failAt;
        }

        @Override
        public void open(OpenContext context) {
            sum = getRuntimeContext().getState(new ValueStateDescriptor<>("sum", Types.LONG));
            if (getRuntimeContext().getTaskInfo().getAttemptNumber() > 0) {
                restored = true;
            }
        }

        @Override
        public void processElement(Long value, Context context, Collector<Long> out)
                throws Exception {
            if (failAt > 0) {
                if (FAILED_AT_NANOS.get() != 0) {
                    if (restored && RECOVERED_AT_NANOS.get() == 0) {
                        RECOVERED_AT_NANOS.compareAndSet(0, System.nanoTime());
                    }
                } else if (value == failAt && FAILED_AT_NANOS.compareAndSet(0, System.nanoTime())) {
                    throw new IllegalStateException("injected failure at record " + value);
                }
            }
            Long current = sum.value();
            // Boxed once: state and output share the Long (the same in both engines' jobs).
            Long next = (current == null ? 0 : current) + value;
            sum.update(next);
            out.collect(next);
        }
    }

    /** Counts what it receives and discards it; the count is checked after the job. */
    static final class CountingSink implements Sink<Long> {
        private static final long serialVersionUID = 1L;

        @Override
        public SinkWriter<Long> createWriter(WriterInitContext context) {
            return new SinkWriter<>() {
                private long count;

                @Override
                public void write(Long element, Context context) {
                    count++;
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
