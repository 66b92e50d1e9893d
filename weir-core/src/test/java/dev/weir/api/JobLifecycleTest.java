package dev.weir.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.api.sink.CountingSink;
import dev.weir.api.sink.Sinks;
import dev.weir.api.source.Sources;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

class JobLifecycleTest {
    static long weirThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && t.getName().startsWith("weir-"))
                .count();
    }

    /** Starts an endless keyed sum on {@code pipeline}; returns once 1,000 records went by. */
    static JobHandle startEndless(Pipeline pipeline) throws InterruptedException {
        CountDownLatch flowing = new CountDownLatch(1000);
        pipeline.source("numbers", Sources.sequence(1, Long.MAX_VALUE - 1))
                .map(
                        n -> {
                            flowing.countDown();
                            return n;
                        })
                .keyBy(n -> n % 7)
                .reduce("sum", Long::sum)
                .sink("out", Sinks.counting());
        JobHandle job = pipeline.start();
        flowing.await();
        return job;
    }

    @Test
    void cancelMidStreamEndsWithCancellationAndLeavesNoThreads() throws Exception {
        JobHandle job = startEndless(Pipeline.create("endless").parallelism(2));

        job.cancel();

        assertThatThrownBy(job::await).isInstanceOf(CancellationException.class);
        assertThat(job.isDone()).isTrue();
        assertThat(weirThreads()).isZero();
    }

    /**
     * The stop's future is completed on a thread of the job, which also runs the caller's dependent
     * actions: {@code await} waits for it too. The dependent action's pause only widens the window
     * in which an {@code await} that did not join that thread would return early.
     */
    @Test
    void aStopWithSavepointLeavesNoThreadsOnceAwaitReturns(
            @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        JobHandle job =
                startEndless(
                        Pipeline.create("stopped")
                                .parallelism(2)
                                .checkpointing(
                                        dev.weir.api.checkpoint.CheckpointConfig.exactlyOnce(
                                                Duration.ofHours(1), dir.resolve("chk"))));

        java.util.concurrent.atomic.AtomicReference<Thread> completedOn =
                new java.util.concurrent.atomic.AtomicReference<>();
        var stopped =
                job.stopWithSavepoint(dir.resolve("sp"))
                        .thenRun(
                                () -> {
                                    completedOn.set(Thread.currentThread());
                                    try {
                                        Thread.sleep(300);
                                    } catch (InterruptedException e) {
                                        Thread.currentThread().interrupt();
                                    }
                                });

        job.await(Duration.ofMinutes(1));
        assertThat(weirThreads()).isZero();
        assertThat(stopped).isDone();
        if (completedOn.get() != null && completedOn.get() != Thread.currentThread()) {
            assertThat(completedOn.get().isAlive()).isFalse();
        }
    }

    @Test
    void anExceptionInAUserFunctionFailsTheJobWithThatCause() throws Exception {
        IllegalStateException boom = new IllegalStateException("bad record 4242");
        Pipeline pipeline = Pipeline.create("failing").parallelism(2);
        pipeline.source("numbers", Sources.sequence(1, 1_000_000))
                .keyBy(n -> n % 3)
                .reduce(
                        "sum",
                        (a, b) -> {
                            if (b == 4242) {
                                throw boom;
                            }
                            return a + b;
                        })
                .sink("out", Sinks.counting());

        assertThatThrownBy(pipeline::run)
                .isInstanceOf(JobFailedException.class)
                .hasCause(boom)
                .hasMessageContaining("bad record 4242");
        assertThat(weirThreads()).isZero();
    }

    @Test
    void aFinishedJobLeavesNoThreadsAndCountsEveryRecord() throws Exception {
        CountingSink<Long> sink = Sinks.counting();
        Pipeline pipeline = Pipeline.create("bounded").parallelism(3);
        pipeline.source("numbers", Sources.sequence(1, 100_000))
                .filter(n -> n % 2 == 0)
                .sink("out", sink);

        JobResult result = pipeline.start().await(Duration.ofMinutes(2));

        assertThat(result.jobName()).isEqualTo("bounded");
        assertThat(sink.count()).isEqualTo(50_000);
        assertThat(weirThreads()).isZero();
    }

    @Test
    void aDuplicateOperatorNameIsRefusedWithTheReason() {
        Pipeline pipeline = Pipeline.create("dupes");
        pipeline.source("numbers", Sources.sequence(1, 3));
        assertThatThrownBy(() -> pipeline.source("numbers", Sources.sequence(1, 3)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'numbers' is used twice")
                .hasMessageContaining("unique");
    }

    @Test
    void parallelismAboveMaxParallelismIsRefused() {
        Pipeline pipeline = Pipeline.create("too-wide").maxParallelism(4).parallelism(8);
        pipeline.source("numbers", Sources.sequence(1, 3)).sink("out", Sinks.counting());
        assertThatThrownBy(pipeline::start)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxParallelism");
    }
}
