package dev.weir.sink;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.api.JobResult;
import dev.weir.api.Pipeline;
import dev.weir.api.RestartStrategy;
import dev.weir.api.checkpoint.CheckpointConfig;
import dev.weir.api.codec.Codecs;
import dev.weir.api.sink.FileSink;
import dev.weir.api.source.Sources;
import dev.weir.internal.testhooks.FaultPoints;
import dev.weir.testing.ChildJvm;
import dev.weir.testing.LogReaderChild;
import dev.weir.testing.LogSinkChild;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Job 1 → LogSink → log topic → LogSource (read-committed) → job 2 → FileSink. Job 1 is killed with
 * SIGKILL at a sink point (possibly half-way through publishing a transaction) and resumed; job 2
 * then fails in-process and restarts. Job 2's committed output is exactly 1..N.
 */
class ChainedJobsThroughTheLogIT {
    static final int N = ExactlyOnceSinkConformance.N;
    @TempDir Path dir;

    @AfterEach
    void disarm() {
        FaultPoints.disarm();
    }

    int runJob1(String fault) throws Exception {
        return runChild(
                LogSinkChild.class.getName(),
                fault,
                "job1.log",
                dir.resolve("log").toString(),
                dir.resolve("chk1").toString(),
                Integer.toString(N));
    }

    int runJob2(String fault) throws Exception {
        return runChild(
                LogReaderChild.class.getName(),
                fault,
                "job2.log",
                dir.resolve("log").toString(),
                dir.resolve("chk2").toString(),
                dir.resolve("out").toString());
    }

    int runChild(String main, String fault, String logName, String... args) throws Exception {
        Process child =
                ChildJvm.start(Class.forName(main), fault, dir.resolve(logName).toFile(), args);
        assertThat(child.waitFor(120, TimeUnit.SECONDS)).isTrue();
        return child.exitValue();
    }

    @ParameterizedTest(name = "job 1 killed at {0}")
    @ValueSource(
            strings = {
                "sink.after-precommit:4",
                "sink.checkpoint-complete-before-commit:4",
                "sink.after-commit:4"
            })
    void bothJobsStayExactlyOnceWhenEitherFails(String fault) throws Exception {
        assertThat(runJob1(fault)).as("job 1 killed").isEqualTo(137);
        assertThat(runJob1(null)).as(Files.readString(dir.resolve("job1.log"))).isZero();

        // The first completion is certain (the final checkpoint's, at the latest), so job 2
        // always fails once, whether its input outlasts a few checkpoints or not.
        FaultPoints.throwAt("sink.checkpoint-complete-before-commit", 1);
        Pipeline job2 =
                Pipeline.create("job2")
                        .parallelism(2)
                        .checkpointing(
                                CheckpointConfig.exactlyOnce(
                                        Duration.ofMillis(10), dir.resolve("chk2")))
                        .restartStrategy(RestartStrategy.fixedDelay(3, Duration.ZERO));
        job2.source("from-log", Sources.log(dir.resolve("log"), "mid", Codecs.LONG))
                .map(n -> Long.toString(n))
                .sink("out", FileSink.<String>to(dir.resolve("out")).rollBytes(2048));
        JobResult result = job2.run();

        ExactlyOnceSinkConformance.assertExactlyOnce(FileSink.readCommitted(dir.resolve("out")));
        assertThat(result.restarts()).as("job 2 failed and restarted").isPositive();
        try (var staging = Files.list(dir.resolve("log").resolve(".staging").resolve("mid"))) {
            assertThat(staging.toList()).as("no staged transaction left").isEmpty();
        }
    }

    @ParameterizedTest(name = "job 2 killed at {0}")
    @ValueSource(strings = {"sink.after-precommit:6", "sink.checkpoint-complete-before-commit:6"})
    void job2KilledWithSigkillResumesExactlyOnce(String fault) throws Exception {
        assertThat(runJob1(null)).isZero();
        assertThat(runJob2(fault)).as("job 2 killed").isEqualTo(137);
        assertThat(runJob2(null)).as(Files.readString(dir.resolve("job2.log"))).isZero();

        ExactlyOnceSinkConformance.assertExactlyOnce(FileSink.readCommitted(dir.resolve("out")));
        try (var files = Files.list(dir.resolve("out"))) {
            assertThat(files.map(p -> p.getFileName().toString()))
                    .noneMatch(n -> n.startsWith("."));
        }
    }
}
