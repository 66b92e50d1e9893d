package dev.weir.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.api.sink.CollectSink;
import dev.weir.api.sink.CountingSink;
import dev.weir.api.sink.Sinks;
import dev.weir.api.source.Sources;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** How records and tasks reach the worker threads. */
class SchedulingTest {
    @Test
    void aKeyedEdgeRunsTheKeySelectorOncePerRecord() throws Exception {
        AtomicLong calls = new AtomicLong();
        CollectSink<Long> out = Sinks.collect();
        Pipeline pipeline = Pipeline.create("keys-once").parallelism(2);
        pipeline.source("numbers", Sources.sequence(1, 100_000))
                .keyBy(
                        n -> {
                            calls.incrementAndGet();
                            return n % 10;
                        })
                .reduce("sum", Long::sum)
                .sink("out", out);
        pipeline.run();

        assertThat(calls.get())
                .as("one key extraction per record, by the sending side")
                .isEqualTo(100_000);
        // The consumer used the shipped keys: each key's last running sum is its true total.
        Map<Long, Long> totals = new HashMap<>();
        for (long n = 1; n <= 100_000; n++) {
            totals.merge(n % 10, n, Long::sum);
        }
        List<Long> results = out.results();
        assertThat(results).hasSize(100_000).containsAll(totals.values());
    }

    @Test
    void anIdleWorkerRunsTheTasksOfAWorkerThatIsBlocked() throws Exception {
        // Three single-task branches on two workers, spread in graph order: worker 0 gets the
        // blocking branch and the releasing one, worker 1 a short filler. Worker 0 blocks in the
        // first; only worker 1 helping with the third can release it.
        CountDownLatch released = new CountDownLatch(1_000);
        CountingSink<Long> blocked = Sinks.counting();
        CountingSink<Long> filler = Sinks.counting();
        CountingSink<Long> releaser = Sinks.counting();
        Pipeline pipeline = Pipeline.create("helping").parallelism(1).workerThreads(2);
        pipeline.source("blocking", Sources.sequence(1, 10))
                .map(
                        n -> {
                            if (!released.await(60, TimeUnit.SECONDS)) {
                                throw new IllegalStateException("no worker ran the releasing task");
                            }
                            return n;
                        })
                .sink("blocked", blocked);
        pipeline.source("filler", Sources.sequence(1, 10)).sink("filler-out", filler);
        pipeline.source("releasing", Sources.sequence(1, 1_000))
                .map(
                        n -> {
                            released.countDown();
                            return n;
                        })
                .sink("released", releaser);

        pipeline.run();

        assertThat(blocked.count()).isEqualTo(10);
        assertThat(filler.count()).isEqualTo(10);
        assertThat(releaser.count()).isEqualTo(1_000);
    }

    @Test
    void aStepMarkedBlockingRunsOnItsOwnThreadSoASingleWorkerKeepsEverythingElseMoving()
            throws Exception {
        // One worker thread for the cooperative tasks. The blocking step waits until the other
        // branch has finished, which needs that worker: without blocking() the worker would be
        // stuck inside the blocking step (its task comes first) and the job would fail.
        CountDownLatch othersDone = new CountDownLatch(1);
        CountingSink<Long> slow = Sinks.counting();
        CountingSink<Long> others = Sinks.counting();
        Pipeline pipeline = Pipeline.create("blocking-step").parallelism(1).workerThreads(1);
        pipeline.source("slow", Sources.sequence(1, 5))
                .map(
                        n -> {
                            if (n == 1 && !othersDone.await(60, TimeUnit.SECONDS)) {
                                throw new IllegalStateException("the other branch was stalled");
                            }
                            return n;
                        })
                .blocking()
                .sink("slow-out", slow);
        pipeline.source("others", Sources.sequence(1, 100_000))
                .map(
                        n -> {
                            if (n == 100_000) {
                                othersDone.countDown();
                            }
                            return n;
                        })
                .sink("others-out", others);

        pipeline.run();

        assertThat(slow.count()).isEqualTo(5);
        assertThat(others.count()).isEqualTo(100_000);
    }

    @Test
    void aSlowStepInATaskOfItsOwnLetsABarrierThroughAfterAFewRecordsNotAFullChannel()
            throws Exception {
        // A step at about 1 ms per record behind a fast source, in tasks of its own (another
        // parallelism, and blocking). With batches of 1,024 records and 64 of them in a channel,
        // a barrier would queue behind up to 65,536 records (over a minute); the channel now
        // sizes batches and its fill by the step's measured pace (SpscChannel.batchRecords), so
        // what waits ahead of a barrier takes the step about 200 ms.
        AtomicLong processed = new AtomicLong();
        CountDownLatch paced = new CountDownLatch(300);
        Path dir = java.nio.file.Files.createTempDirectory("weir-slow-step");
        Pipeline pipeline =
                Pipeline.create("slow-step")
                        .parallelism(1)
                        .checkpointing(
                                dev.weir.api.checkpoint.CheckpointConfig.exactlyOnce(
                                        java.time.Duration.ofHours(1), dir.resolve("chk")));
        pipeline.source("numbers", Sources.sequence(1, 100_000_000))
                .map(
                        n -> {
                            Thread.sleep(1); // the slow step itself
                            processed.incrementAndGet();
                            paced.countDown();
                            return n;
                        })
                .blocking()
                .parallelism(2)
                .sink("out", Sinks.counting());
        JobHandle job = pipeline.start();
        try {
            // The step has run long enough to have measured its pace.
            assertThat(paced.await(2, TimeUnit.MINUTES)).isTrue();
            for (int i = 0; i < 3; i++) {
                long before = processed.get();
                job.triggerCheckpoint().get(2, TimeUnit.MINUTES);
                assertThat(processed.get() - before)
                        .as("records the slow step took while checkpoint %d passed", i + 1)
                        .isLessThan(2_000);
            }
            long before = processed.get();
            job.stopWithSavepoint(dir.resolve("savepoints")).get(2, TimeUnit.MINUTES);
            assertThat(processed.get() - before)
                    .as("records the slow step took before the stop's savepoint passed")
                    .isLessThan(2_000);
        } finally {
            job.cancel();
        }
    }
}
