package dev.weir.dashboard;

import dev.weir.api.JobHandle;
import dev.weir.api.JobListener;
import dev.weir.api.Pipeline;
import dev.weir.api.RestartStrategy;
import dev.weir.api.checkpoint.CheckpointConfig;
import dev.weir.api.checkpoint.CheckpointStats;
import dev.weir.api.codec.Codecs;
import dev.weir.api.sink.Sinks;
import dev.weir.api.source.Sources;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * A job that keeps running until cancelled, with a dashboard: numbers (2 splits, 20,000/s) → scaled
 * (fails once, at record 3,000) → keyBy(n % 16) → sum → out (a counting sink, at-least-once: the
 * weakest link), exactly-once checkpoints every 200 ms, parallelism 2.
 */
final class RunningJob implements AutoCloseable {
    /** Armed per job: the map step throws once when it sees this record. */
    private static final AtomicBoolean FAILED = new AtomicBoolean();

    static final long FAILING_RECORD = 3_000;

    /**
     * What "sum" takes per record: at most 5,000 records/s per subtask, 10,000/s in all, against
     * 40,000/s offered, so the channels into it stay full.
     */
    static final long SLOW_NANOS = 200_000;

    /** Part of the failure's message: the page must show it as text. */
    static final String MARKUP = "(<b>markup shown as text</b>)";

    final Pipeline pipeline;
    final JobHandle job;
    final WeirDashboard dashboard;
    private final CountDownLatch checkpointsAfterFailure = new CountDownLatch(2);
    private final AtomicBoolean restarted = new AtomicBoolean();

    RunningJob(Path checkpoints) throws Exception {
        FAILED.set(false);
        pipeline =
                Pipeline.create("dashboard-demo")
                        .parallelism(2)
                        // Small channels: a barrier waits behind at most 512 records of each.
                        .batchSize(128)
                        .channelCapacityBatches(4)
                        .checkpointing(
                                CheckpointConfig.exactlyOnce(Duration.ofMillis(200), checkpoints))
                        .restartStrategy(RestartStrategy.fixedDelay(3, Duration.ofMillis(20)))
                        .listener(
                                new JobListener() {
                                    @Override
                                    public void onCheckpointComplete(CheckpointStats stats) {
                                        if (restarted.get()) {
                                            checkpointsAfterFailure.countDown();
                                        }
                                    }

                                    @Override
                                    public void onFailure(
                                            Throwable cause, int attempt, boolean willRestart) {
                                        restarted.set(true);
                                    }
                                });
        pipeline.source("numbers", Sources.sequence(1, Long.MAX_VALUE / 4, 2, 40_000))
                .map(RunningJob::scale)
                .name("scaled")
                .keyBy(n -> n % 16)
                .<Long, Long>process(
                        "sum",
                        Codecs.LONG,
                        (key, n, sum, out) -> {
                            LockSupport.parkNanos(SLOW_NANOS); // a slow step: backpressure
                            long next = (sum.value() == null ? 0 : sum.value()) + n;
                            sum.update(next);
                            out.collect(next);
                        })
                .blocking()
                .sink("out", Sinks.counting());
        WeirDashboard.recordFailures(pipeline);
        job = pipeline.start();
        dashboard = WeirDashboard.start(job, pipeline, 0);
    }

    private static long scale(long n) {
        if (n == FAILING_RECORD && FAILED.compareAndSet(false, true)) {
            throw new IllegalStateException(
                    "injected failure at record " + FAILING_RECORD + " " + MARKUP);
        }
        return n * 3;
    }

    /** Waits until the job has restarted once and completed two checkpoints since. */
    void awaitRestartAndCheckpoints() throws InterruptedException {
        if (!checkpointsAfterFailure.await(2, TimeUnit.MINUTES)) {
            throw new AssertionError(
                    "no restart and two checkpoints within 2 minutes: restarts="
                            + job.restarts()
                            + ", checkpoints="
                            + job.checkpointStats().size());
        }
    }

    @Override
    public void close() throws Exception {
        dashboard.close();
        job.cancel();
        try {
            job.await(Duration.ofMinutes(1));
        } catch (java.util.concurrent.CancellationException expected) {
            // cancelled, as asked
        }
    }
}
