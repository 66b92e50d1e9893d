package dev.weir.verify;

import dev.weir.api.DataStream;
import dev.weir.api.JobListener;
import dev.weir.api.Pipeline;
import dev.weir.api.RestartStrategy;
import dev.weir.api.checkpoint.CheckpointConfig;
import dev.weir.api.checkpoint.CheckpointStats;
import dev.weir.api.codec.Codecs;
import dev.weir.api.sink.FileSink;
import dev.weir.api.sink.LogSink;
import dev.weir.api.sink.Sink;
import dev.weir.flink.FlinkRunner;
import dev.weir.jdbc.PostgresConnectionConfig;
import dev.weir.jdbc.PostgresTwoPhaseCommitSink;
import dev.weir.jdbc.TableMapping;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * The workload {@code weir verify} runs in a child JVM: records {@code (key, seq)} for n = 1..N,
 * where the keys cycle in a seeded order and seq counts each key's records from 1; the job keeps
 * per-key count and sum of seq in keyed state and writes every update through the chosen
 * exactly-once sink. The record numbers come from the chosen replayable source ({@link
 * VerifyInput}), read by two source subtasks from several splits that hold each key's records in
 * one split, in order, so each key's records reach its state in seq order and the checker can
 * demand that order.
 *
 * <p>Arguments: source ({@code sequence|log|files|kafka}), sink ({@code file|log|postgres|kafka}),
 * work directory, input directory, N, keys, seed, records per second, then {@code jdbc=<url>} for
 * postgres, {@code kafka=<bootstrap servers>} for a Kafka source or sink, {@code kafka-out=<topic>}
 * for the Kafka sink, {@code workload=windows} for the windowed workload ({@link WindowWorkload})
 * instead of the per-key count and sum, and {@code flink=<host>:<rest port>} to submit the job to
 * that Flink session cluster ({@code FlinkRunner.remote}) and wait for it, instead of running it on
 * Weir's runtime in this JVM.
 *
 * <p>Prints for the harness: {@code RESTORED <id> <millis>} when it restores a checkpoint, {@code
 * CHECKPOINT <id>} when one completes, {@code ENDED <split> <records>} when a split ends, {@code
 * DONE} at the end.
 */
public final class VerifyJob {
    /** One output update: key's seq-th record, with the count and sum of seq after it. */
    public record Update(int key, long seq, long count, long sum) {
        /** As one line: {@code key,seq,count,sum}. */
        public String line() {
            return key + "," + seq + "," + count + "," + sum;
        }

        /** Parses {@link #line()}; null if the line is not one (a torn or foreign line). */
        public static Update parse(String line) {
            String[] parts = line.split(",");
            if (parts.length != 4) {
                return null;
            }
            try {
                return new Update(
                        Integer.parseInt(parts[0]),
                        Long.parseLong(parts[1]),
                        Long.parseLong(parts[2]),
                        Long.parseLong(parts[3]));
            } catch (NumberFormatException e) {
                return null;
            }
        }
    }

    /** An input record. */
    public record Input(int key, long seq) {}

    /** Per-key state. */
    public record CountSum(long count, long sum) {}

    /** The table the postgres sink writes. */
    static final String TABLE = "weir_verify_updates";

    /** The postgres sink's transaction id prefix. */
    static final String PREFIX = "weir-verify";

    private VerifyJob() {}

    /** The seeded order in which records cycle through the keys. */
    static int[] keyOrder(long seed, int keys) {
        int[] order = new int[keys];
        for (int i = 0; i < keys; i++) {
            order[i] = i;
        }
        Random random = new Random(seed);
        for (int i = keys - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            int t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        return order;
    }

    /** Input record {@code n} (from 1). */
    static Input input(long n, int[] order) {
        int keys = order.length;
        return new Input(order[(int) ((n - 1) % keys)], (n - 1) / keys + 1);
    }

    static Sink<String> sink(String kind, Path work, Map<String, String> targets) {
        String jdbcUrl = targets.get("jdbc");
        switch (kind) {
            case "kafka":
                return KafkaVerify.sink(targets.get("kafka"), targets.get("kafka-out"));
            case "file":
                return FileSink.<String>to(work.resolve("out")).rollBytes(64 * 1024);
            case "log":
                return LogSink.to(work.resolve("log"), "updates", Codecs.STRING);
            case "postgres":
                return PostgresTwoPhaseCommitSink.into(
                                PostgresConnectionConfig.of(jdbcUrl)
                                        .credentials("postgres", "postgres"),
                                TableMapping.<String>of(
                                        TABLE,
                                        List.of("k", "seq", "count", "sum"),
                                        line -> {
                                            Update u = Update.parse(line);
                                            return new Object[] {
                                                u.key(), u.seq(), u.count(), u.sum()
                                            };
                                        }))
                        .transactionIdPrefix(PREFIX);
            default:
                throw new IllegalArgumentException(
                        "unknown sink '" + kind + "'; use file, log, postgres or kafka");
        }
    }

    /**
     * The record numbers, from the chosen source with {@link VerifyInput#SOURCE_PARALLELISM}, or
     * for the windowed workload one subtask per split: a subtask's watermark follows the records it
     * reads, and splits read by one subtask at different paces would make most records of the
     * slower ones late (watermarks per split inside a source subtask are not built yet).
     */
    static DataStream<Long> numbers(
            Pipeline pipeline,
            String source,
            Path input,
            long n,
            int keys,
            long rate,
            Map<String, String> targets,
            boolean windows) {
        int parallelism =
                windows && !source.equals("kafka") && !source.equals("files")
                        ? VerifyInput.splitCount(source, input, n, keys)
                        : VerifyInput.SOURCE_PARALLELISM;
        if (source.equals("kafka")) {
            return pipeline.source("input", VerifyInput.kafka(targets.get("kafka"), rate))
                    .parallelism(VerifyInput.SOURCE_PARALLELISM);
        }
        if (source.equals("files")) {
            return pipeline.source("input", VerifyInput.lines(input, rate))
                    .parallelism(VerifyInput.SOURCE_PARALLELISM)
                    .map(Long::parseLong);
        }
        return pipeline.source("input", VerifyInput.numbers(source, input, n, keys, rate))
                .parallelism(parallelism);
    }

    public static void main(String[] args) throws Exception {
        String source = args[0];
        String kind = args[1];
        Path work = Path.of(args[2]);
        Path input = Path.of(args[3]);
        long n = Long.parseLong(args[4]);
        int keys = Integer.parseInt(args[5]);
        long seed = Long.parseLong(args[6]);
        long rate = Long.parseLong(args[7]);
        Map<String, String> targets = new HashMap<>();
        for (int i = 8; i < args.length; i++) {
            int eq = args[i].indexOf('=');
            targets.put(args[i].substring(0, eq), args[i].substring(eq + 1));
        }
        boolean kafka = source.equals("kafka") || kind.equals("kafka");
        String flink = targets.get("flink");
        if (flink == null) {
            SplitGate.enable();
        }
        int[] order = keyOrder(seed, keys);
        Pipeline pipeline =
                Pipeline.create("weir-verify")
                        .parallelism(2)
                        .checkpointing(
                                CheckpointConfig.exactlyOnce(
                                        Duration.ofMillis(50), work.resolve("chk")))
                        // A broker restart takes 10-15 s: with Kafka, wait it out. On Flink every
                        // TaskManager kill fails the job once or more (a restart may still find
                        // the killed TaskManager's slots until its heartbeat times out).
                        .restartStrategy(
                                kafka
                                        ? RestartStrategy.fixedDelay(30, Duration.ofSeconds(1))
                                        : flink != null
                                                ? RestartStrategy.fixedDelay(
                                                        1_000, Duration.ofMillis(500))
                                                : RestartStrategy.fixedDelay(3, Duration.ZERO))
                        .listener(
                                new JobListener() {
                                    @Override
                                    public void onRestore(long checkpointId, Path path) {
                                        System.out.println(
                                                "RESTORED "
                                                        + checkpointId
                                                        + " "
                                                        + System.currentTimeMillis());
                                        System.out.flush();
                                    }

                                    @Override
                                    public void onCheckpointComplete(CheckpointStats stats) {
                                        SplitGate.checkpointCompleted();
                                        System.out.println("CHECKPOINT " + stats.id());
                                        System.out.flush();
                                    }
                                });
        boolean windows = targets.getOrDefault("workload", "count").equals("windows");
        DataStream<Input> inputs =
                numbers(pipeline, source, input, n, keys, rate, targets, windows)
                        .map(i -> input(i, order));
        if (windows) {
            pipeline.autoWatermarkInterval(Duration.ofMillis(5));
            WindowWorkload.apply(inputs).sink("out", sink(kind, work, targets));
            pipeline.run();
            System.out.println("DONE");
            return;
        }
        inputs.keyBy(Input::key)
                .<CountSum, Update>process(
                        "count-sum",
                        Codecs.record(CountSum.class),
                        (key, in, state, out) -> {
                            CountSum now = state.value();
                            CountSum next =
                                    now == null
                                            ? new CountSum(1, in.seq())
                                            : new CountSum(now.count() + 1, now.sum() + in.seq());
                            state.update(next);
                            out.collect(new Update(key, in.seq(), next.count(), next.sum()));
                        })
                .map(Update::line)
                .sink("out", sink(kind, work, targets))
                // A durable log has one writer process (an OS lock): on a cluster of several
                // TaskManagers the log sink runs as one subtask.
                .parallelism(flink != null && kind.equals("log") ? 1 : 2);
        if (flink != null) {
            int colon = flink.lastIndexOf(':');
            pipeline.run(
                    FlinkRunner.remote(
                            flink.substring(0, colon),
                            Integer.parseInt(flink.substring(colon + 1))));
        } else {
            pipeline.run();
        }
        System.out.println("DONE");
    }
}
