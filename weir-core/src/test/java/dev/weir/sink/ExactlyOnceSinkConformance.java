package dev.weir.sink;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.api.JobResult;
import dev.weir.api.Pipeline;
import dev.weir.api.RestartStrategy;
import dev.weir.api.checkpoint.CheckpointConfig;
import dev.weir.api.sink.Sink;
import dev.weir.api.source.Sources;
import dev.weir.internal.testhooks.FaultPoints;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The contract every exactly-once sink passes: whatever the failure — before or after pre-commit,
 * between checkpoint completion and commit, in the middle of committing, during recovery — the
 * committed output equals the failure-free output, and nothing is left uncommitted at the end. The
 * same points are killed with SIGKILL in {@code SinkCrashIT}.
 */
public abstract class ExactlyOnceSinkConformance {
    public static final int N = 20_000;
    @TempDir protected Path temp;

    /** A sink writing into {@code output}. */
    protected abstract Sink<String> createSink(Path output) throws Exception;

    /** The committed records in {@code output}, as a reader would see them now. */
    protected abstract List<String> readCommitted(Path output) throws Exception;

    /** Uncommitted leftovers (open or prepared transactions, pending files) in {@code output}. */
    protected abstract List<String> dangling(Path output) throws Exception;

    @AfterEach
    void disarm() {
        FaultPoints.disarm();
    }

    protected JobResult runJob(Path output, Path checkpoints) throws Exception {
        return runJob(output, checkpoints, Duration.ofMillis(20));
    }

    protected JobResult runJob(Path output, Path checkpoints, Duration interval) throws Exception {
        Pipeline pipeline =
                Pipeline.create("sink-conformance")
                        .parallelism(2)
                        .checkpointing(CheckpointConfig.exactlyOnce(interval, checkpoints))
                        .restartStrategy(RestartStrategy.fixedDelay(5, Duration.ZERO));
        pipeline.source("numbers", Sources.sequence(1, N, 2, 50_000))
                .map(n -> Long.toString(n))
                .sink("out", createSink(output))
                // 3 sink subtasks behind a rebalance: each aligns barriers from 2 inputs.
                .parallelism(3);
        return pipeline.run();
    }

    public static void assertExactlyOnce(List<String> committed) {
        Map<String, Integer> counts = new HashMap<>();
        for (String line : committed) {
            counts.merge(line, 1, Integer::sum);
        }
        List<String> missing = new ArrayList<>();
        for (int n = 1; n <= N && missing.size() < 10; n++) {
            if (!counts.containsKey(Long.toString(n))) {
                missing.add(Long.toString(n));
            }
        }
        assertThat(missing).as("lost records").isEmpty();
        assertThat(counts.entrySet())
                .as("duplicated records")
                .filteredOn(e -> e.getValue() > 1)
                .isEmpty();
        assertThat(committed).hasSize(N);
    }

    @Test
    void withoutFailuresTheCommittedOutputIsTheInput() throws Exception {
        Path output = temp.resolve("out");
        runJob(output, temp.resolve("chk"));
        assertExactlyOnce(readCommitted(output));
        assertThat(dangling(output)).isEmpty();
    }

    @ParameterizedTest(name = "{0} (hit {1})")
    @CsvSource({
        "sink.before-precommit, 3",
        "sink.after-precommit, 3",
        "sink.checkpoint-complete-before-commit, 3",
        "sink.after-commit, 2",
        "barrier.aligned, 2",
        "source.after-poll, 30"
    })
    void aFailureAtAnyPointLeavesTheCommittedOutputExactlyOnce(String point, long hit)
            throws Exception {
        Path output = temp.resolve("out");
        FaultPoints.throwAt(point, hit);
        JobResult result = runJob(output, temp.resolve("chk"));
        assertThat(result.restarts()).as("the fault fired").isPositive();
        assertExactlyOnce(readCommitted(output));
        assertThat(dangling(output)).isEmpty();
    }

    /**
     * A bounded job whose only checkpoint is the final one, and that one fails: the job must try it
     * again (nothing else would trigger one, and the sink waits for it to commit its data), not
     * wait forever.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource({"manifest.before-rename", "checkpoint.all-acknowledged", "snapshot.before-write"})
    @org.junit.jupiter.api.Timeout(120) // it used to wait forever
    void aFinalCheckpointThatFailsIsTriedAgain(String point) throws Exception {
        Path output = temp.resolve("out");
        FaultPoints.throwAt(point, 1);
        JobResult result = runJob(output, temp.resolve("chk"), Duration.ofMinutes(2));
        assertThat(FaultPoints.hits(point)).as("the fault fired").isPositive();
        assertThat(result.restarts()).isZero();
        assertExactlyOnce(readCommitted(output));
        assertThat(dangling(output)).isEmpty();
    }

    @Test
    void aFailureDuringRecoveryIsRecoveredFromToo() throws Exception {
        Path output = temp.resolve("out");
        FaultPoints.throwAt("sink.checkpoint-complete-before-commit", 3);
        FaultPoints.throwAt("sink.before-recover", 1);
        JobResult result = runJob(output, temp.resolve("chk"));
        assertThat(result.restarts()).isGreaterThanOrEqualTo(2);
        assertExactlyOnce(readCommitted(output));
        assertThat(dangling(output)).isEmpty();
    }
}
