package dev.weir.verify;

import dev.weir.api.JobListener;
import dev.weir.api.Pipeline;
import dev.weir.api.RestartStrategy;
import dev.weir.api.checkpoint.CheckpointConfig;
import dev.weir.api.codec.Codecs;
import dev.weir.api.sink.FileSink;
import dev.weir.api.sink.LogSink;
import dev.weir.api.sink.Sink;
import dev.weir.api.source.Sources;
import dev.weir.jdbc.PostgresConnectionConfig;
import dev.weir.jdbc.PostgresTwoPhaseCommitSink;
import dev.weir.jdbc.TableMapping;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Random;

/**
 * The workload {@code weir verify} runs in a child JVM: records {@code (key, seq)} for n = 1..N,
 * where the keys cycle in a seeded order and seq counts each key's records from 1; the job keeps
 * per-key count and sum of seq in keyed state and writes every update through the chosen
 * exactly-once sink. The input is replayable (a sequence with checkpointed offsets), and one split,
 * so each key's records reach its state in seq order and the checker can demand that order.
 *
 * <p>Arguments: sink ({@code file|log|postgres}), work directory, N, keys, seed, records per
 * second, and for postgres the JDBC URL.
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

    static Sink<String> sink(String kind, Path work, String jdbcUrl) {
        switch (kind) {
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
                        .transactionIdPrefix("weir-verify");
            default:
                throw new IllegalArgumentException(
                        "unknown sink '" + kind + "'; use file, log or postgres");
        }
    }

    public static void main(String[] args) throws Exception {
        String kind = args[0];
        Path work = Path.of(args[1]);
        long n = Long.parseLong(args[2]);
        int keys = Integer.parseInt(args[3]);
        long seed = Long.parseLong(args[4]);
        long rate = Long.parseLong(args[5]);
        String jdbcUrl = args.length > 6 ? args[6] : null;
        int[] order = keyOrder(seed, keys);
        Pipeline pipeline =
                Pipeline.create("weir-verify")
                        .parallelism(2)
                        .checkpointing(
                                CheckpointConfig.exactlyOnce(
                                        Duration.ofMillis(50), work.resolve("chk")))
                        .restartStrategy(RestartStrategy.fixedDelay(3, Duration.ZERO))
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
                                });
        pipeline.source("input", Sources.sequence(1, n, 1, rate))
                .map(i -> input(i, order))
                .keyBy(Input::key)
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
                .sink("out", sink(kind, work, jdbcUrl));
        pipeline.run();
        System.out.println("DONE");
    }
}
