package dev.weir.bench;

import dev.weir.api.DataStream;
import dev.weir.api.JobResult;
import dev.weir.api.Pipeline;
import dev.weir.api.RestartStrategy;
import dev.weir.api.checkpoint.CheckpointConfig;
import dev.weir.api.checkpoint.CheckpointStats;
import dev.weir.api.checkpoint.CheckpointingMode;
import dev.weir.api.codec.Codecs;
import dev.weir.api.log.DurableLog;
import dev.weir.api.log.LogOptions;
import dev.weir.api.sink.CountingSink;
import dev.weir.api.sink.Sinks;
import dev.weir.api.source.Source;
import dev.weir.api.source.Sources;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The keyed running-sum job: 1..N, keyBy(n % K), running sum per key in {@code ValueState}, each
 * update into a discarding counting sink. Prints one result line per run and checks the count.
 */
@Command(name = "keyed-sum", description = "Runs the keyed running-sum job on Weir.")
public final class KeyedSumBench implements Callable<Integer> {
    @Mixin KeyedSumOptions job;

    @Option(
            names = "--source",
            description =
                    "generator (in memory) or log (the numbers are first written to a durable log"
                            + " topic with P partitions, untimed, then read by the job).")
    String sourceKind = "generator";

    @Option(
            names = "--timestamps",
            description =
                    "Give each record an event timestamp (its value) and watermarks (monotonous)"
                            + " before the keyBy: what carrying record time costs.")
    boolean timestamps;

    @Option(
            names = "--timestamps-at",
            description =
                    "With --timestamps, where time is assigned: source (per split, in the source:"
                            + " Pipeline.source(name, source, strategy), default) or operator"
                            + " (assignTimestampsAndWatermarks after the source).")
    String timestampsAt = "source";

    @Option(
            names = "--runner",
            description =
                    "local (Weir's runtime) or flink (the same pipeline on a local Flink cluster"
                            + " through FlinkRunner; reported as engine=weir-on-flink) (default"
                            + " ${DEFAULT-VALUE}).")
    String runner = "local";

    @Override
    public Integer call() throws Exception {
        CheckpointingMode checkpointing =
                switch (job.mode) {
                    case "none" -> CheckpointingMode.NONE;
                    case "alo" -> CheckpointingMode.AT_LEAST_ONCE;
                    case "eo" -> CheckpointingMode.EXACTLY_ONCE;
                    default -> null;
                };
        if (checkpointing == null) {
            System.err.println("unknown --mode '" + job.mode + "'; use none, alo or eo");
            return 2;
        }
        if (job.failAt > 0 && checkpointing == CheckpointingMode.NONE) {
            System.err.println("--fail-at needs checkpoints; use --mode alo or eo");
            return 2;
        }
        for (int run = 0; run < job.runs; run++) {
            runOnce(checkpointing);
        }
        return 0;
    }

    private static final AtomicLong FAILED_AT_NANOS = new AtomicLong();
    private static final AtomicLong RECOVERED_AT_NANOS = new AtomicLong();
    private static final java.util.concurrent.atomic.AtomicBoolean RESTORED =
            new java.util.concurrent.atomic.AtomicBoolean();

    private void runOnce(CheckpointingMode checkpointing) throws Exception {
        long keys = job.k;
        long failRecord = job.failAt;
        FAILED_AT_NANOS.set(0);
        RECOVERED_AT_NANOS.set(0);
        RESTORED.set(false);
        Path dir = Files.createTempDirectory("weir-bench-");
        Source<Long> source = Sources.sequence(1, job.n);
        if (sourceKind.equals("log")) {
            source = writeLog(dir.resolve("log"));
        } else if (!sourceKind.equals("generator")) {
            throw new IllegalArgumentException(
                    "unknown --source " + sourceKind + "; use generator or log");
        }
        Pipeline pipeline = Pipeline.create("keyed-sum").parallelism(job.p);
        if (checkpointing != CheckpointingMode.NONE) {
            pipeline.checkpointing(
                            CheckpointConfig.exactlyOnce(Duration.ofMillis(job.intervalMs), dir)
                                    .withMode(checkpointing))
                    .restartStrategy(RestartStrategy.fixedDelay(1, Duration.ZERO))
                    .listener(
                            new dev.weir.api.JobListener() {
                                @Override
                                public void onRestore(long checkpointId, Path path) {
                                    RESTORED.set(true);
                                }

                                @Override
                                public void onCheckpointComplete(CheckpointStats stats) {
                                    TimedFileSink.COMPLETED_NANOS.put(
                                            stats.id(), System.nanoTime());
                                }
                            });
        }
        CountingSink<Long> sink = Sinks.counting();
        dev.weir.api.time.WatermarkStrategy<Long> strategy =
                dev.weir.api.time.WatermarkStrategy.<Long>forMonotonousTimestamps()
                        .withTimestampAssigner((n, previous) -> n);
        if (!timestampsAt.equals("source") && !timestampsAt.equals("operator")) {
            throw new IllegalArgumentException(
                    "unknown --timestamps-at " + timestampsAt + "; use source or operator");
        }
        boolean atSource = timestamps && timestampsAt.equals("source");
        DataStream<Long> numbers =
                atSource
                        ? pipeline.source("numbers", source, strategy)
                        : pipeline.source("numbers", source);
        if (timestamps && !atSource) {
            numbers = numbers.assignTimestampsAndWatermarks(strategy);
        }
        DataStream<Long> sums =
                job.multi() ? multiStage(numbers, keys) : runningSum(numbers, keys, failRecord);
        if (job.sinkKind.equals("file")) {
            sums.sink("file", new TimedFileSink<Long>(dir.resolve("out")));
        } else if (job.sinkKind.equals("discard")) {
            sums.sink("count", sink);
        } else {
            throw new IllegalArgumentException(
                    "unknown --sink " + job.sinkKind + "; use discard or file");
        }
        if (!runner.equals("local") && !runner.equals("flink")) {
            throw new IllegalArgumentException(
                    "unknown --runner " + runner + "; use local or flink");
        }
        RunResources resources = new RunResources();
        var handle =
                runner.equals("flink")
                        ? pipeline.start(dev.weir.flink.FlinkRunner.local(job.p))
                        : pipeline.start();
        JobResult result = handle.await();
        String cost = resources.fields(job.n);
        List<CheckpointStats> checkpoints = handle.checkpointStats();
        if (failRecord == 0 && job.sinkKind.equals("file")) {
            OutputCheck.expectLines(dir.resolve("out"), job.expectedOutputs());
        }
        deleteRecursively(dir);
        if (failRecord == 0
                && job.sinkKind.equals("discard")
                && sink.count() != job.expectedOutputs()) {
            throw new IllegalStateException(
                    "expected " + job.expectedOutputs() + " updates, sink saw " + sink.count());
        }
        double seconds = result.duration().toNanos() / 1e9;
        StringBuilder line =
                new StringBuilder(
                        job.resultLine(
                                runner.equals("flink") ? "weir-on-flink" : "weir",
                                sourceKind.equals("log") ? "-from-log" : "",
                                seconds));
        line.append(cost);
        if (timestamps) {
            line.append(" timestamps=").append(timestampsAt);
        }
        if (checkpointing != CheckpointingMode.NONE) {
            long[] durations =
                    checkpoints.stream()
                            .mapToLong(CheckpointStats::durationMillis)
                            .sorted()
                            .toArray();
            long[] sync = slowestTask(checkpoints, CheckpointStats.TaskStats::syncNanos);
            long size =
                    checkpoints.isEmpty() ? 0 : checkpoints.get(checkpoints.size() - 1).sizeBytes();
            line.append(
                    String.format(
                            Locale.ROOT,
                            " checkpoints=%d ckpt_p50_ms=%d ckpt_p99_ms=%d sync_p50_us=%d state_bytes=%d",
                            durations.length,
                            percentile(durations, 50),
                            percentile(durations, 99),
                            percentile(sync, 50) / 1000,
                            size));
        }
        if (job.sinkKind.equals("file")) {
            long[] latencies =
                    TimedFileSink.COMMIT_LATENCY_NANOS.stream()
                            .mapToLong(Long::longValue)
                            .sorted()
                            .toArray();
            line.append(
                    String.format(
                            Locale.ROOT,
                            " commit_latency_ms_p50=%.1f commit_latency_ms_p99=%.1f",
                            percentile(latencies, 50) / 1e6,
                            percentile(latencies, 99) / 1e6));
            TimedFileSink.COMMIT_LATENCY_NANOS.clear();
            TimedFileSink.COMPLETED_NANOS.clear();
        }
        if (failRecord > 0) {
            long recoveryNanos = RECOVERED_AT_NANOS.get() - FAILED_AT_NANOS.get();
            line.append(
                    RECOVERED_AT_NANOS.get() == 0
                            ? String.format(
                                    Locale.ROOT,
                                    " restarts=%d recovery_ms=n/a (failed before the first"
                                            + " checkpoint; use a later --fail-at)",
                                    result.restarts())
                            : String.format(
                                    Locale.ROOT,
                                    " restarts=%d recovery_ms=%.1f",
                                    result.restarts(),
                                    recoveryNanos / 1e6));
        }
        System.out.println(line);
    }

    /**
     * The multi-stage shape: map(n * 3), filter out multiples of 5, keyBy(n % keys) into a running
     * sum in ValueState, keyBy(sum % keys) into a rolling reduce(+); the same job as {@link
     * FlinkKeyedSumBench#multiStage}.
     */
    static DataStream<Long> multiStage(DataStream<Long> numbers, long keys) {
        DataStream<Long> filtered = numbers.map(n -> n * 3).filter(n -> n % 5 != 0);
        return runningSum(filtered, keys, 0)
                .keyBy(sum -> sum % keys)
                .reduce("reduce", (a, b) -> a + b, Codecs.LONG);
    }

    /**
     * keyBy(n % keys), running sum per key in ValueState, emitting every new sum; fails once at
     * record {@code failRecord} if it is positive.
     */
    static DataStream<Long> runningSum(DataStream<Long> numbers, long keys, long failRecord) {
        return numbers.keyBy(value -> value % keys)
                .<Long, Long>process(
                        "sum",
                        Codecs.LONG,
                        (key, value, sum, out) -> {
                            if (failRecord > 0) {
                                observeFailure(value, failRecord);
                            }
                            Long current = sum.value();
                            // Boxed once: state and output share the Long (the same in both
                            // engines' jobs).
                            Long next = (current == null ? 0 : current) + value;
                            sum.update(next);
                            out.collect(next);
                        });
    }

    /** Writes 1..n round-robin into a log topic with one partition per subtask. */
    private Source<Long> writeLog(Path dir) {
        try (DurableLog log =
                DurableLog.open(
                        dir, LogOptions.defaults().withFsync(LogOptions.FsyncPolicy.NEVER))) {
            log.createTopic("numbers", job.p);
            int batch = 4096;
            for (int partition = 0; partition < job.p; partition++) {
                List<byte[]> records = new ArrayList<>(batch);
                for (long value = partition + 1; value <= job.n; value += job.p) {
                    records.add(Codecs.LONG.toBytes(value));
                    if (records.size() == batch) {
                        log.append("numbers", partition, records);
                        records.clear();
                    }
                }
                log.append("numbers", partition, records);
            }
            log.flush();
        }
        return Sources.log(dir, "numbers", Codecs.LONG);
    }

    /**
     * Throws once at {@code failRecord}; notes the first record processed after the restore (the
     * other subtasks of the failing attempt may still process a few records meanwhile: those do not
     * count).
     */
    private static void observeFailure(long value, long failRecord) {
        if (FAILED_AT_NANOS.get() != 0) {
            if (RESTORED.get() && RECOVERED_AT_NANOS.get() == 0) {
                RECOVERED_AT_NANOS.compareAndSet(0, System.nanoTime());
            }
        } else if (value == failRecord && FAILED_AT_NANOS.compareAndSet(0, System.nanoTime())) {
            throw new IllegalStateException("injected failure at record " + value);
        }
    }

    /** Per checkpoint, the slowest task's {@code part}; sorted. */
    static long[] slowestTask(
            List<CheckpointStats> checkpoints,
            java.util.function.ToLongFunction<CheckpointStats.TaskStats> part) {
        return checkpoints.stream()
                .mapToLong(c -> c.tasks().stream().mapToLong(part).max().orElse(0))
                .sorted()
                .toArray();
    }

    static long percentile(long[] sorted, int percent) {
        if (sorted.length == 0) {
            return 0;
        }
        int index = (int) Math.ceil(percent / 100.0 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
    }

    /** Deletes {@code path}: a file, or a directory with everything under it; absent is fine. */
    static void deleteRecursively(Path path) throws IOException {
        if (!Files.exists(path)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(path)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
