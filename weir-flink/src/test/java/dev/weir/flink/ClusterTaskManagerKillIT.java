package dev.weir.flink;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.api.JobHandle;
import dev.weir.api.Pipeline;
import dev.weir.api.RestartStrategy;
import dev.weir.api.checkpoint.CheckpointConfig;
import dev.weir.api.codec.Codecs;
import dev.weir.api.log.DurableLog;
import dev.weir.api.log.LogOptions;
import dev.weir.api.sink.FileSink;
import dev.weir.api.sink.LogSink;
import dev.weir.api.source.Sources;
import dev.weir.flink.cluster.LocalFlinkCluster;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The pipeline of {@link FlinkRunnerTest} on a standalone Flink cluster (one JobManager, two
 * TaskManagers, child JVMs): a TaskManager SIGKILLed mid-run and started again leaves the committed
 * output of the FileSink and the LogSink exactly-once.
 */
class ClusterTaskManagerKillIT {
    @TempDir Path temp;

    /**
     * source (1 split, rate-limited) → n × 10 → keyBy(n % 4) → running sum → "key:sum" lines.
     * Static, so its lambdas capture nothing but serialisable values: they travel to the cluster.
     */
    static Pipeline pipeline(long n, long perSecond, Path checkpoints, Path out, Path log) {
        Pipeline pipeline =
                Pipeline.create("cluster-sum")
                        .parallelism(2)
                        .checkpointing(
                                CheckpointConfig.exactlyOnce(Duration.ofMillis(200), checkpoints))
                        .restartStrategy(RestartStrategy.fixedDelay(60, Duration.ofSeconds(1)));
        var sums =
                pipeline.source("numbers", Sources.sequence(1, n, 1, perSecond))
                        .parallelism(1)
                        .map(v -> v * 10)
                        .keyBy(v -> v % FlinkRunnerTest.KEYS)
                        .<Long, String>process(
                                "sum",
                                Codecs.LONG,
                                (key, v, sum, collector) -> {
                                    long next = (sum.value() == null ? 0 : sum.value()) + v;
                                    sum.update(next);
                                    collector.collect(key + ":" + next);
                                });
        sums.sink("files", FileSink.<String>to(out));
        // One process may write a log directory (an OS lock): one sink subtask.
        sums.sink("log", LogSink.to(log, "sums", Codecs.STRING)).parallelism(1);
        return pipeline;
    }

    @Test
    void aTaskManagerSigkilledMidRunAndStartedAgainLeavesExactlyOnceFileOutput() throws Exception {
        long n = 16_000;
        Path out = temp.resolve("out");
        Path log = temp.resolve("log");
        try (DurableLog durable = DurableLog.open(log, LogOptions.defaults())) {
            durable.createTopic("sums", 1);
        }
        try (LocalFlinkCluster cluster =
                LocalFlinkCluster.start(temp.resolve("cluster"), 2, Duration.ofSeconds(120))) {
            JobHandle job =
                    pipeline(n, 2_000, temp.resolve("chk"), out, log)
                            .start(FlinkRunner.remote("localhost", cluster.restPort()));
            // Kill once output is committed: a checkpoint completed and the job is mid-run.
            while (FileSink.readCommitted(out).isEmpty()) {
                assertThat(finishedWithin(job, Duration.ofMillis(100)))
                        .as("the job ended before its first commit")
                        .isFalse();
            }
            assertThat(FileSink.readCommitted(out)).hasSizeLessThan((int) n);
            int killed = cluster.killBusyTaskManager();
            cluster.restartTaskManager(killed);

            job.await(Duration.ofMinutes(3));

            assertThat(FlinkRunnerTest.sorted(FileSink.readCommitted(out)))
                    .isEqualTo(FlinkRunnerTest.expected(n));
            assertThat(new FlinkRunnerTest.Outputs(out, log, null).logRecords())
                    .isEqualTo(FlinkRunnerTest.expected(n));
            String jobs = cluster.rest("/jobs/overview");
            Matcher id = Pattern.compile("\"jid\":\"([0-9a-f]+)\"").matcher(jobs);
            assertThat(id.find()).as(jobs).isTrue();
            assertThat(cluster.rest("/jobs/" + id.group(1) + "/exceptions"))
                    .as("the kill failed the job once at least")
                    .contains("\"exceptionHistory\"")
                    .containsPattern("\"entries\":\\[\\{");
        }
    }

    private static boolean finishedWithin(JobHandle job, Duration wait) throws Exception {
        try {
            job.await(wait);
            return true;
        } catch (TimeoutException stillRunning) {
            return false;
        }
    }
}
