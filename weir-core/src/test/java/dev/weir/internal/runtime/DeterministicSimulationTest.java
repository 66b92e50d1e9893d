package dev.weir.internal.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.api.JobListener;
import dev.weir.api.Pipeline;
import dev.weir.api.RestartStrategy;
import dev.weir.api.checkpoint.CheckpointConfig;
import dev.weir.api.checkpoint.CheckpointView;
import dev.weir.api.codec.Codecs;
import dev.weir.api.plan.PipelinePlan;
import dev.weir.api.sink.Sinks;
import dev.weir.api.source.Sources;
import dev.weir.internal.checkpoint.CheckpointStore;
import dev.weir.internal.checkpoint.RestoredCheckpoint;
import dev.weir.internal.graph.JobGraph;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The runtime driven step by step on one thread, TigerBeetle-style: a seed picks which task takes
 * the next step, when a checkpoint is triggered and when a task fails; checkpoint writes happen
 * inside the step that completes a snapshot (synchronous I/O), and the clock is a counter. So a
 * seed reproduces a run exactly — the test runs each seed twice and compares the traces — and the
 * state the job ends with must be the failure-free one: the canonical even/odd sums.
 */
class DeterministicSimulationTest {
    static final long N = 600;

    @TempDir Path dir;

    /** Armed by the simulation: the next record the map sees fails its task. */
    static final AtomicLong FAIL_NEXT = new AtomicLong();

    static long[] seeds() {
        long[] seeds = new long[40];
        for (int i = 0; i < seeds.length; i++) {
            seeds[i] = 7_000 + i;
        }
        return seeds;
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void aSeedReproducesItsRunAndTheStateIsExactlyOnce(long seed) throws Exception {
        List<String> first = simulate(seed, dir.resolve("a"));
        List<String> second = simulate(seed, dir.resolve("b"));
        assertThat(second).as("the trace of seed %d", seed).isEqualTo(first);
        assertThat(first).last().asString().isEqualTo("sums even=90300 odd=90000");
    }

    @org.junit.jupiter.api.Test
    void theSeedsCoverFailuresRestoresAndCheckpoints() throws Exception {
        int restored = 0;
        int restoredFromACheckpoint = 0;
        int checkpointed = 0;
        for (long seed : seeds()) {
            List<String> trace = simulate(seed, dir.resolve("cover-" + seed));
            restored += trace.stream().anyMatch(t -> t.startsWith("restore")) ? 1 : 0;
            restoredFromACheckpoint +=
                    trace.stream().anyMatch(t -> t.startsWith("restore ") && !t.endsWith("none"))
                            ? 1
                            : 0;
            checkpointed +=
                    trace.stream().filter(t -> t.startsWith("checkpoint")).count() > 1 ? 1 : 0;
        }
        assertThat(restored).as("seeds with a failure and a restart").isGreaterThan(10);
        assertThat(restoredFromACheckpoint).as("of which from a checkpoint").isGreaterThan(5);
        assertThat(checkpointed).as("seeds with several checkpoints").isGreaterThan(30);
    }

    /** Runs the job under {@code seed}; returns what happened, step by step. */
    List<String> simulate(long seed, Path checkpoints) throws Exception {
        Random random = new Random(seed);
        List<String> trace = new ArrayList<>();
        int parallelism = 1 + random.nextInt(3);
        Pipeline pipeline =
                Pipeline.create("sim")
                        .parallelism(parallelism)
                        .batchSize(1 + random.nextInt(16))
                        .channelCapacityBatches(2 + random.nextInt(4))
                        .checkpointing(CheckpointConfig.exactlyOnce(Duration.ZERO, checkpoints))
                        .restartStrategy(RestartStrategy.none())
                        .listener(
                                new JobListener() {
                                    @Override
                                    public void onCheckpointComplete(
                                            dev.weir.api.checkpoint.CheckpointStats stats) {
                                        trace.add("checkpoint " + stats.id());
                                    }
                                });
        pipeline.source("numbers", Sources.sequence(1, N, 3, 0))
                .map(
                        n -> {
                            if (FAIL_NEXT.compareAndSet(1, 0)) {
                                throw new IllegalStateException("simulated failure at " + n);
                            }
                            return n;
                        })
                .keyBy(n -> n % 2 == 0 ? "even" : "odd")
                .reduce("sum", Long::sum, Codecs.LONG)
                .sink("out", Sinks.counting());
        PipelinePlan plan = pipeline.plan();
        JobGraph graph = JobGraph.plan(LocalRunner.nodes(plan), parallelism);
        long[] clock = {0};
        RuntimeClock manual =
                new RuntimeClock() {
                    @Override
                    public long nanoTime() {
                        return clock[0] * 1_000;
                    }

                    @Override
                    public long millis() {
                        return clock[0];
                    }
                };
        FAIL_NEXT.set(0);
        try (CheckpointStore store = new CheckpointStore(checkpoints, 3)) {
            JobSettings settings = settings(plan, store, manual, true);
            RestoredCheckpoint restored = null;
            for (int attempt = 0; attempt < 10; attempt++) {
                Execution execution = new Execution(graph, settings, restored, 0, stats -> {});
                boolean failed = run(execution, random, clock, trace);
                execution.awaitTermination();
                if (!failed) {
                    break;
                }
                Optional<Path> latest = store.latestComplete(0);
                restored = latest.map(RestoredCheckpoint::load).orElse(null);
                trace.add("restore " + (restored == null ? "none" : restored.id()));
            }
            Path last = store.latestComplete(0).orElseThrow();
            Map<Object, Long> sums =
                    CheckpointView.open(last).valueState("sum", "value", Codecs.LONG);
            trace.add("sums even=" + sums.get("even") + " odd=" + sums.get("odd"));
        }
        return trace;
    }

    /**
     * The settings of {@code plan} on {@code store}; checkpoint I/O on the caller's thread or not.
     */
    static JobSettings settings(
            PipelinePlan plan,
            dev.weir.internal.checkpoint.CheckpointStorage store,
            RuntimeClock clock,
            boolean synchronousIo) {
        PipelinePlan.Settings s = plan.settings();
        return new JobSettings(
                new RuntimeConfig(
                        plan.name(),
                        s.parallelism(),
                        s.maxParallelism(),
                        s.batchSize(),
                        s.channelCapacityBatches(),
                        s.channelCapacityBytes(),
                        s.workerThreads(),
                        s.maxIdleParkNanos(),
                        s.autoWatermarkMillis(),
                        s.watermarkAlignmentMillis()),
                s.checkpoints(),
                store,
                s.restartStrategy(),
                s.listener(),
                null,
                false,
                clock,
                42,
                null,
                s.stateBackend(),
                synchronousIo);
    }

    /**
     * Steps the tasks in seeded order until the job ends or a task fails; returns true on a
     * failure. Seeded: a checkpoint now and then, and one failure per attempt at most.
     */
    private static boolean run(Execution execution, Random random, long[] clock, List<String> trace)
            throws Exception {
        List<Task> tasks = execution.tasks();
        boolean armed = random.nextInt(3) == 0;
        long armAtStep = armed ? random.nextInt(400) : -1;
        for (long step = 0; step < 200_000; step++) {
            clock[0]++;
            if (step == armAtStep) {
                FAIL_NEXT.set(1);
                trace.add("arm failure at step " + step);
            }
            if (random.nextInt(50) == 0) {
                execution.triggerCheckpoint(null);
            }
            Task task = tasks.get(random.nextInt(tasks.size()));
            if (task.isDone()) {
                if (tasks.stream().allMatch(Task::isDone)) {
                    trace.add("done at step " + step);
                    return false;
                }
                continue;
            }
            try {
                task.doWork();
            } catch (Exception e) {
                trace.add("failed: " + rootMessage(e));
                execution.fail(task, e);
                return true;
            }
            if (task.isDone()) {
                execution.taskDone(task);
            }
        }
        throw new AssertionError("the job did not finish in 200,000 steps: " + trace);
    }

    private static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null) {
            root = root.getCause();
        }
        return root.getMessage();
    }
}
