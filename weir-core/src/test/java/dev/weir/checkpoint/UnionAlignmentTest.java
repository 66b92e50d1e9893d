package dev.weir.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.api.JobListener;
import dev.weir.api.Pipeline;
import dev.weir.api.RestartStrategy;
import dev.weir.api.checkpoint.CheckpointConfig;
import dev.weir.api.checkpoint.CheckpointStats;
import dev.weir.api.checkpoint.CheckpointingMode;
import dev.weir.api.codec.Codecs;
import dev.weir.api.sink.CollectSink;
import dev.weir.api.sink.Sinks;
import dev.weir.api.source.Sources;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Invariant 2: a fast and a slow source feed one keyed counter through a union. The fast source's
 * barrier arrives long before the slow one's. Without alignment (at-least-once) the counter keeps
 * taking fast records meanwhile; they are inside the snapshot and are also replayed after a
 * failure, so they count twice. With alignment (exactly-once) they never do.
 */
class UnionAlignmentTest {
    static final long FAST = 60_000;
    static final long SLOW = 60;
    @TempDir Path dir;

    record Count(long key, long count) {}

    long totalAfterOneFailure(CheckpointingMode mode) throws Exception {
        AtomicBoolean checkpointed = new AtomicBoolean();
        AtomicBoolean failed = new AtomicBoolean();
        Pipeline pipeline =
                Pipeline.create("union-" + mode.name().toLowerCase())
                        .batchSize(16)
                        .checkpointing(
                                CheckpointConfig.exactlyOnce(
                                                Duration.ofMillis(150), dir.resolve(mode.name()))
                                        .withMode(mode))
                        .restartStrategy(RestartStrategy.fixedDelay(1, Duration.ZERO))
                        .listener(
                                new JobListener() {
                                    @Override
                                    public void onCheckpointComplete(CheckpointStats stats) {
                                        checkpointed.set(true);
                                    }
                                });
        var fast = pipeline.source("fast", Sources.sequence(1, FAST, 1, 40_000));
        var slow =
                pipeline.source("slow", Sources.sequence(1_000_001, 1_000_000 + SLOW, 1, 0))
                        .map(
                                n -> {
                                    LockSupport.parkNanos(20_000_000);
                                    return n;
                                });
        CollectSink<Count> sink = Sinks.collect();
        fast.union(slow)
                .keyBy(n -> n % 4)
                .<Long, Count>process(
                        "count",
                        Codecs.LONG,
                        (key, n, state, out) -> {
                            if (checkpointed.get() && failed.compareAndSet(false, true)) {
                                throw new IllegalStateException(
                                        "injected failure after a checkpoint");
                            }
                            long next = (state.value() == null ? 0 : state.value()) + 1;
                            state.update(next);
                            out.collect(new Count(key, next));
                        })
                .sink("out", sink);

        pipeline.run();

        assertThat(failed).isTrue();
        Map<Long, Long> finalCounts = new HashMap<>();
        for (Count count : sink.results()) {
            finalCounts.merge(count.key(), count.count(), Math::max);
        }
        return finalCounts.values().stream().mapToLong(Long::longValue).sum();
    }

    @Test
    void invariant2_atLeastOnceCountsRecordsThatOvertookABarrierTwice() throws Exception {
        assertThat(totalAfterOneFailure(CheckpointingMode.AT_LEAST_ONCE))
                .isGreaterThan(FAST + SLOW);
    }

    @Test
    void invariant2_exactlyOnceAlignsSoEveryRecordCountsOnce() throws Exception {
        assertThat(totalAfterOneFailure(CheckpointingMode.EXACTLY_ONCE)).isEqualTo(FAST + SLOW);
    }
}
