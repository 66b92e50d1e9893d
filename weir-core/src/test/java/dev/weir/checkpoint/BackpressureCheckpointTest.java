package dev.weir.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.api.Guarantee;
import dev.weir.api.JobHandle;
import dev.weir.api.Pipeline;
import dev.weir.api.checkpoint.CheckpointConfig;
import dev.weir.api.checkpoint.CheckpointStats;
import dev.weir.api.sink.Sink;
import dev.weir.api.sink.SinkContext;
import dev.weir.api.sink.SinkWriter;
import dev.weir.api.source.Sources;
import dev.weir.testing.KeyedCountJob;
import dev.weir.testing.KeyedCountJob.Update;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A barrier travels behind the records queued before it, so under backpressure a checkpoint takes
 * as long as draining the (bounded) channels; with small channels it completes well within its
 * timeout.
 */
class BackpressureCheckpointTest {
    @TempDir Path dir;

    static final AtomicLong WRITTEN = new AtomicLong();

    static final class SlowSink implements Sink<Update> {
        @Override
        public String kind() {
            return "slow";
        }

        @Override
        public Guarantee guarantee() {
            return Guarantee.AT_LEAST_ONCE;
        }

        @Override
        public SinkWriter<Update> createWriter(SinkContext context) {
            return record -> {
                LockSupport.parkNanos(50_000);
                WRITTEN.incrementAndGet();
            };
        }
    }

    @Test
    void aCheckpointUnderHeavyBackpressureCompletesWithinItsTimeout() throws Exception {
        Duration timeout = Duration.ofSeconds(20);
        Pipeline pipeline =
                Pipeline.create("backpressured")
                        .parallelism(2)
                        .batchSize(64)
                        .channelCapacityBatches(8)
                        .checkpointing(
                                CheckpointConfig.exactlyOnce(Duration.ZERO, dir)
                                        .withTimeout(timeout));
        KeyedCountJob.apply(
                        pipeline.source("numbers", Sources.sequence(1, Long.MAX_VALUE - 1, 2, 0)),
                        10)
                .sink("slow", new SlowSink());
        JobHandle job = pipeline.start();
        try {
            // The sink takes ~20k records/s per subtask and the source far more: once the sink has
            // written a few thousand, every channel in front of it is full.
            while (WRITTEN.get() < 4_000) {
                Thread.onSpinWait();
            }
            CheckpointStats stats =
                    job.triggerCheckpoint().get(timeout.toSeconds() + 5, TimeUnit.SECONDS);

            assertThat(stats.durationMillis()).isLessThan(timeout.toMillis());
            assertThat(stats.maxAlignmentNanos()).isGreaterThanOrEqualTo(0);
            assertThat(job.checkpointStats()).extracting(CheckpointStats::id).contains(stats.id());
        } finally {
            job.cancel();
            Assertions.assertThatThrownBy(job::await).isInstanceOf(CancellationException.class);
        }
    }
}
