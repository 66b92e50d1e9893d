package dev.weir.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.api.JobHandle;
import dev.weir.api.JobResult;
import dev.weir.api.Pipeline;
import dev.weir.api.RestartStrategy;
import dev.weir.api.checkpoint.CheckpointConfig;
import dev.weir.api.sink.CollectSink;
import dev.weir.api.sink.Sinks;
import dev.weir.api.source.Sources;
import dev.weir.testing.KeyedCountJob;
import dev.weir.testing.KeyedCountJob.Update;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Invariants 1–7 under failures at seeded random points: each seed picks where checkpoints are
 * triggered and where tasks throw (1–3 failures), at parallelism 1–3. The committed state must
 * equal a failure-free run's, whatever the interleaving. A failing seed is in the test's name.
 */
class FailureSimulationTest {
    static final long N = 3_000;
    static final long KEYS = 6;

    @TempDir Path dir;

    static long[] seeds() {
        long[] seeds = new long[200];
        for (int i = 0; i < seeds.length; i++) {
            seeds[i] = 1000 + i;
        }
        return seeds;
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void stateAfterSeededFailuresEqualsAFailureFreeRun(long seed) throws Exception {
        Random random = new Random(seed);
        int parallelism = 1 + random.nextInt(3);
        Set<Long> checkpointAt = new HashSet<>();
        for (int i = 0; i < 1 + random.nextInt(6); i++) {
            checkpointAt.add(1 + (long) random.nextInt((int) N));
        }
        Set<Long> failAt = new HashSet<>();
        int failures = 1 + random.nextInt(3);
        for (int i = 0; i < failures; i++) {
            failAt.add(1 + (long) random.nextInt((int) N));
        }
        Set<Long> failed = ConcurrentHashMap.newKeySet();
        AtomicReference<JobHandle> handle = new AtomicReference<>();
        Path checkpoints = Files.createDirectories(dir.resolve("seed-" + seed));

        Pipeline pipeline =
                Pipeline.create("sim-" + seed)
                        .parallelism(parallelism)
                        .batchSize(1 + random.nextInt(64))
                        .seed(seed)
                        // Odd seeds restore keyed state from the checkpoint files, even seeds
                        // from the in-memory copies of local recovery: both must be exact.
                        .localRecovery(seed % 2 == 0)
                        .checkpointing(CheckpointConfig.exactlyOnce(Duration.ZERO, checkpoints))
                        .restartStrategy(RestartStrategy.fixedDelay(failures, Duration.ZERO));
        var numbers =
                pipeline.source("numbers", Sources.sequence(1, N, KEYS_SPLITS, 0))
                        .map(
                                n -> {
                                    if (checkpointAt.contains(n) && handle.get() != null) {
                                        handle.get().triggerCheckpoint();
                                    }
                                    if (failAt.contains(n) && failed.add(n)) {
                                        throw new IllegalStateException("seeded failure at " + n);
                                    }
                                    return n;
                                });
        CollectSink<Update> sink = Sinks.collect();
        KeyedCountJob.apply(numbers, KEYS).sink("out", sink);

        JobHandle job = pipeline.start();
        handle.set(job);
        JobResult result = job.await(Duration.ofMinutes(1));

        KeyedCountJob.Verdict verdict = KeyedCountJob.check(sink.results(), N, KEYS);
        assertThat(verdict.problems())
                .as(
                        "seed %d (parallelism %d, checkpoints at %s, failures at %s)",
                        seed, parallelism, checkpointAt, failAt)
                .isEmpty();
        // Two subtasks may hit their failure points in the same attempt: one restart covers both.
        assertThat(result.restarts()).isBetween(1, failAt.size());
    }

    /** Splits of the source: a divisor of KEYS so that each key's numbers come from one split. */
    static final int KEYS_SPLITS = 3;
}
