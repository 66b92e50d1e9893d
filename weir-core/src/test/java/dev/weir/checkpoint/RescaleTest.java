package dev.weir.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.api.JobHandle;
import dev.weir.api.JobResult;
import dev.weir.api.Pipeline;
import dev.weir.api.checkpoint.CheckpointConfig;
import dev.weir.api.checkpoint.CheckpointStats;
import dev.weir.api.checkpoint.CheckpointView;
import dev.weir.api.codec.Codecs;
import dev.weir.api.sink.CollectSink;
import dev.weir.api.sink.Sinks;
import dev.weir.api.source.Sources;
import dev.weir.testing.KeyedCountJob;
import dev.weir.testing.KeyedCountJob.Update;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Savepoints restore at another parallelism by reassigning whole key groups: 2 → 3 → 1 gives the
 * same per-key results as one uninterrupted run.
 */
class RescaleTest {
    static final long N = 300_000;
    static final long KEYS = 40;
    @TempDir Path dir;

    Pipeline job(int parallelism, Path savepoint, CollectSink<Update> sink, long rate) {
        Pipeline pipeline =
                Pipeline.create("rescale")
                        .parallelism(parallelism)
                        .checkpointing(
                                CheckpointConfig.exactlyOnce(Duration.ZERO, dir.resolve("chk"))
                                        .withResume("none"));
        if (savepoint != null) {
            pipeline.fromSavepoint(savepoint);
        }
        KeyedCountJob.apply(pipeline.source("numbers", Sources.sequence(1, N, 4, rate)), KEYS)
                .sink("out", sink);
        return pipeline;
    }

    Path runThenStopWithSavepoint(int parallelism, Path from, CollectSink<Update> sink)
            throws Exception {
        // 100,000 records/s: the savepoint is asked for seconds before the input ends, even on a
        // loaded machine (at 300,000/s the input once ended first).
        JobHandle job = job(parallelism, from, sink, 100_000).start();
        while (sink.results().size() < (from == null ? 50_000 : 150_000)) {
            if (job.isDone()) {
                job.await(); // it ended early: throws its failure
                throw new AssertionError("the job ended before the savepoint was taken");
            }
            Thread.onSpinWait();
        }
        CheckpointStats savepoint = job.stopWithSavepoint(dir).get(30, TimeUnit.SECONDS);
        JobResult result = job.await();
        assertThat(result.stoppedWithSavepoint()).contains(savepoint.path());
        assertThat(savepoint.savepoint()).isTrue();
        return savepoint.path();
    }

    @Test
    void rescalingTwoToThreeToOneKeepsEveryKeysResult() throws Exception {
        CollectSink<Update> sink = Sinks.collect();

        Path first = runThenStopWithSavepoint(2, null, sink);
        Path second = runThenStopWithSavepoint(3, first, sink);
        job(1, second, sink, 0).run();

        KeyedCountJob.Verdict verdict = KeyedCountJob.check(sink.results(), N, KEYS);
        assertThat(verdict.problems()).isEmpty();
        CheckpointView view = CheckpointView.open(second);
        assertThat(view.isSavepoint()).isTrue();
        assertThat(
                        view.valueState(
                                "count-sum", "value", Codecs.record(KeyedCountJob.CountSum.class)))
                .hasSize((int) KEYS);
        List<Long> positions = new ArrayList<>(view.offsets("numbers").values());
        assertThat(positions).hasSize(4).allMatch(p -> p > 0);
    }
}
