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
import dev.weir.internal.checkpoint.StateFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The keyed running-sum job: 1..N, keyBy(n % K), running sum per key in {@code ValueState}, each
 * update into a discarding counting sink. Prints one result line per run and checks the count.
 */
@Command(name = "keyed-sum", description = "Runs the keyed running-sum job on Weir.")
public final class KeyedSumBench implements Callable<Integer> {
    @Option(names = "--n", description = "Records (default ${DEFAULT-VALUE}).")
    long n = 50_000_000L;

    @Option(names = "--k", description = "Distinct keys (default ${DEFAULT-VALUE}).")
    long k = 2;

    @Option(names = "--p", description = "Parallelism (default ${DEFAULT-VALUE}).")
    int p = 2;

    @Option(
            names = "--mode",
            description = "Checkpointing: none, alo (at-least-once) or eo (exactly-once).")
    String mode = "none";

    @Option(
            names = "--interval-ms",
            description = "Checkpoint interval (default ${DEFAULT-VALUE}).")
    long intervalMs = 1000;

    @Option(
            names = "--fail-at",
            description =
                    "Throw once when this record is processed and report the recovery time"
                            + " (needs --mode alo or eo; 0 = never).")
    long failAt = 0;

    @Option(names = "--runs", description = "Runs in this JVM (default ${DEFAULT-VALUE}).")
    int runs = 1;

    @Option(
            names = "--source",
            description =
                    "generator (in memory) or log (the numbers are first written to a durable log"
                            + " topic with P partitions, untimed, then read by the job).")
    String sourceKind = "generator";

    @Option(
            names = "--sink",
            description = "discard (count only) or file (every update through FileSink).")
    String sinkKind = "discard";

    @Override
    public Integer call() throws Exception {
        CheckpointingMode checkpointing =
                switch (mode) {
                    case "none" -> CheckpointingMode.NONE;
                    case "alo" -> CheckpointingMode.AT_LEAST_ONCE;
                    case "eo" -> CheckpointingMode.EXACTLY_ONCE;
                    default -> null;
                };
        if (checkpointing == null) {
            System.err.println("unknown --mode '" + mode + "'; use none, alo or eo");
            return 2;
        }
        if (failAt > 0 && checkpointing == CheckpointingMode.NONE) {
            System.err.println("--fail-at needs checkpoints; use --mode alo or eo");
            return 2;
        }
        for (int run = 0; run < runs; run++) {
            runOnce(checkpointing);
        }
        return 0;
    }

    private static final AtomicLong FAILED_AT_NANOS = new AtomicLong();
    private static final AtomicLong RECOVERED_AT_NANOS = new AtomicLong();
    private static final java.util.concurrent.atomic.AtomicBoolean RESTORED =
            new java.util.concurrent.atomic.AtomicBoolean();

    private void runOnce(CheckpointingMode checkpointing) throws Exception {
        long keys = k;
        long failRecord = failAt;
        FAILED_AT_NANOS.set(0);
        RECOVERED_AT_NANOS.set(0);
        RESTORED.set(false);
        Path dir = Files.createTempDirectory("weir-bench-");
        Source<Long> source = Sources.sequence(1, n);
        if (sourceKind.equals("log")) {
            source = writeLog(dir.resolve("log"));
        } else if (!sourceKind.equals("generator")) {
            throw new IllegalArgumentException(
                    "unknown --source " + sourceKind + "; use generator or log");
        }
        Pipeline pipeline = Pipeline.create("keyed-sum").parallelism(p);
        if (checkpointing != CheckpointingMode.NONE) {
            pipeline.checkpointing(
                            CheckpointConfig.exactlyOnce(Duration.ofMillis(intervalMs), dir)
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
        DataStream<Long> sums = runningSum(pipeline.source("numbers", source), keys, failRecord);
        if (sinkKind.equals("file")) {
            sums.sink("file", new TimedFileSink<Long>(dir.resolve("out")));
        } else if (sinkKind.equals("discard")) {
            sums.sink("count", sink);
        } else {
            throw new IllegalArgumentException(
                    "unknown --sink " + sinkKind + "; use discard or file");
        }
        var job = pipeline.start();
        JobResult result = job.await();
        List<CheckpointStats> checkpoints = job.checkpointStats();
        if (failRecord == 0 && sinkKind.equals("file")) {
            OutputCheck.expectLines(dir.resolve("out"), n);
        }
        StateFiles.deleteRecursively(dir);
        if (failRecord == 0 && sinkKind.equals("discard") && sink.count() != n) {
            throw new IllegalStateException("expected " + n + " updates, sink saw " + sink.count());
        }
        double seconds = result.duration().toNanos() / 1e9;
        StringBuilder line = new StringBuilder();
        line.append(
                String.format(
                        Locale.ROOT,
                        "engine=weir job=keyed-sum%s%s mode=%s N=%d K=%d P=%d seconds=%.3f records_per_s=%.0f",
                        sourceKind.equals("log") ? "-from-log" : "",
                        sinkKind.equals("file") ? "-to-file" : "",
                        mode,
                        n,
                        k,
                        p,
                        seconds,
                        n / seconds));
        if (checkpointing != CheckpointingMode.NONE) {
            long[] durations =
                    checkpoints.stream()
                            .mapToLong(CheckpointStats::durationMillis)
                            .sorted()
                            .toArray();
            long[] sync =
                    checkpoints.stream()
                            .mapToLong(
                                    c ->
                                            c.tasks().stream()
                                                    .mapToLong(t -> t.syncNanos())
                                                    .max()
                                                    .orElse(0))
                            .sorted()
                            .toArray();
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
        if (sinkKind.equals("file")) {
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
            log.createTopic("numbers", p);
            int batch = 4096;
            for (int partition = 0; partition < p; partition++) {
                List<byte[]> records = new ArrayList<>(batch);
                for (long value = partition + 1; value <= n; value += p) {
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

    static long percentile(long[] sorted, int percent) {
        if (sorted.length == 0) {
            return 0;
        }
        int index = (int) Math.ceil(percent / 100.0 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
    }
}
