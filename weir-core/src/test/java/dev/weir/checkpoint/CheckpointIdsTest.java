package dev.weir.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.api.JobHandle;
import dev.weir.api.Pipeline;
import dev.weir.api.checkpoint.CheckpointConfig;
import dev.weir.api.checkpoint.CheckpointStats;
import dev.weir.api.sink.Sinks;
import dev.weir.api.source.Sources;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Checkpoint ids are never used twice for one job's output: a savepoint's id is taken in another
 * directory, so a run started from it (into the same checkpoint directory or a fresh one) or
 * resumed beside it must number its checkpoints above it. Sinks key their transactions by
 * checkpoint id; a reused id made a write-ahead sink skip a batch as "already sent".
 */
class CheckpointIdsTest {
    @TempDir Path dir;

    private Pipeline job(Path checkpoints, String resume, Path savepoint) {
        Pipeline pipeline =
                Pipeline.create("ids")
                        .parallelism(2)
                        .checkpointing(
                                CheckpointConfig.exactlyOnce(Duration.ofHours(1), checkpoints)
                                        .withResume(resume));
        if (savepoint != null) {
            pipeline.fromSavepoint(savepoint);
        }
        pipeline.source("numbers", Sources.sequence(1, Long.MAX_VALUE / 4, 2, 10_000))
                .keyBy(n -> n % 7)
                .reduce("sum", Long::sum)
                .sink("out", Sinks.counting());
        return pipeline;
    }

    /** Takes checkpoint 1 into {@code chk}, then stops with savepoint 2 into {@code sp}. */
    private CheckpointStats checkpointThenStopWithSavepoint() throws Exception {
        JobHandle first = job(dir.resolve("chk"), "none", null).start();
        CheckpointStats checkpoint = first.triggerCheckpoint().get(30, TimeUnit.SECONDS);
        CheckpointStats savepoint =
                first.stopWithSavepoint(dir.resolve("sp")).get(30, TimeUnit.SECONDS);
        first.await();
        assertThat(savepoint.id()).isGreaterThan(checkpoint.id());
        return savepoint;
    }

    private long firstCheckpointOf(Pipeline pipeline) throws Exception {
        JobHandle job = pipeline.start();
        try {
            return job.triggerCheckpoint().get(30, TimeUnit.SECONDS).id();
        } finally {
            job.cancel();
            try {
                job.await();
            } catch (Exception cancelled) {
                // cancelled on purpose
            }
        }
    }

    @Test
    void aRunStartedFromASavepointNumbersAboveItInTheSameDirectory() throws Exception {
        CheckpointStats savepoint = checkpointThenStopWithSavepoint();
        long next = firstCheckpointOf(job(dir.resolve("chk"), "none", savepoint.path()));
        assertThat(next).isGreaterThan(savepoint.id());
    }

    @Test
    void aRunStartedFromASavepointNumbersAboveItInAFreshDirectory() throws Exception {
        CheckpointStats savepoint = checkpointThenStopWithSavepoint();
        long next = firstCheckpointOf(job(dir.resolve("fresh"), "none", savepoint.path()));
        assertThat(next).isGreaterThan(savepoint.id());
    }

    @Test
    void aRunResumedBesideASavepointNumbersAboveIt() throws Exception {
        CheckpointStats savepoint = checkpointThenStopWithSavepoint();
        long next = firstCheckpointOf(job(dir.resolve("chk"), "latest", null));
        assertThat(next).isGreaterThan(savepoint.id());
    }
}
