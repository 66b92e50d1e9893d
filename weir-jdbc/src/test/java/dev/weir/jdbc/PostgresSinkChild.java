package dev.weir.jdbc;

import dev.weir.api.Pipeline;
import dev.weir.api.RestartStrategy;
import dev.weir.api.checkpoint.CheckpointConfig;
import dev.weir.api.sink.Sink;
import dev.weir.api.source.Sources;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The sink conformance job (numbers 1..N as text, checkpoints every 20 ms, 3 sink subtasks) into
 * PostgreSQL, run in a child JVM so a test can kill it. Arguments: checkpoint directory, JDBC URL,
 * table, N, sink kind ({@code 2pc} or {@code upsert}), transaction id prefix.
 */
public final class PostgresSinkChild {
    private PostgresSinkChild() {}

    public static void main(String[] args) throws Exception {
        PostgresConnectionConfig db =
                PostgresConnectionConfig.of(args[1]).credentials("postgres", "postgres");
        String table = args[2];
        Sink<String> sink =
                args[4].equals("upsert")
                        ? PostgresUpsertSink.into(
                                        db,
                                        TableMapping.<String>of(
                                                        table,
                                                        List.of("v", "written"),
                                                        v -> new Object[] {v, 1})
                                                .key("v"))
                                .batchSize(100)
                        : PostgresTwoPhaseCommitSink.into(
                                        db,
                                        TableMapping.<String>of(
                                                table, List.of("v"), v -> new Object[] {v}))
                                .batchSize(100)
                                .transactionIdPrefix(args[5]);
        Pipeline pipeline =
                Pipeline.create("postgres-crash")
                        .parallelism(2)
                        .checkpointing(
                                CheckpointConfig.exactlyOnce(
                                        Duration.ofMillis(20), Path.of(args[0])))
                        .restartStrategy(RestartStrategy.fixedDelay(3, Duration.ZERO));
        // 20,000 records/s: the run lasts about a second, so a kill at the Nth checkpoint's point
        // comes before the input ends on a loaded machine (at 50,000/s, once, it did not).
        pipeline.source("numbers", Sources.sequence(1, Long.parseLong(args[3]), 2, 20_000))
                .map(n -> Long.toString(n))
                .sink("out", sink)
                .parallelism(3);
        pipeline.run();
    }
}
