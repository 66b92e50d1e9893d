package dev.weir.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.api.sink.Sink;
import dev.weir.api.sink.SinkContext;
import dev.weir.api.sink.SinkWriter;
import dev.weir.api.source.Sources;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

class BackpressureTest {
    static final AtomicLong EMITTED = new AtomicLong();
    static final AtomicLong WRITTEN = new AtomicLong();
    static final AtomicLong MAX_IN_FLIGHT = new AtomicLong();
    static final AtomicLong SUM = new AtomicLong();

    /** A sink that is much slower than the source: it spends about 20 µs per record. */
    static final class SlowSink implements Sink<Long> {
        @Override
        public String kind() {
            return "slow";
        }

        @Override
        public Guarantee guarantee() {
            return Guarantee.AT_LEAST_ONCE;
        }

        @Override
        public SinkWriter<Long> createWriter(SinkContext context) {
            return record -> {
                LockSupport.parkNanos(20_000);
                long written = WRITTEN.incrementAndGet();
                SUM.addAndGet(record);
                MAX_IN_FLIGHT.accumulateAndGet(EMITTED.get() - written, Math::max);
            };
        }
    }

    @Test
    void aSlowSinkHoldsTheSourceBackAndLosesNothing() throws Exception {
        int batchSize = 16;
        int capacity = 4;
        int parallelism = 2;
        long n = 20_000;
        Pipeline pipeline =
                Pipeline.create("backpressure")
                        .parallelism(parallelism)
                        .batchSize(batchSize)
                        .channelCapacityBatches(capacity);
        pipeline.source("numbers", Sources.sequence(1, n))
                .map(
                        v -> {
                            EMITTED.incrementAndGet();
                            return v;
                        })
                .keyBy(v -> v % 5)
                .reduce("sum", (a, b) -> b)
                .sink("slow", new SlowSink());

        pipeline.run();

        assertThat(WRITTEN.get()).isEqualTo(n);
        assertThat(SUM.get()).isEqualTo(n * (n + 1) / 2);
        // What may sit between source and sink: every channel full, plus one batch per target
        // being built and one input batch per task being processed.
        long channels = (long) parallelism * parallelism;
        long bound = channels * (capacity + 2) * batchSize + 2L * parallelism * batchSize;
        assertThat(MAX_IN_FLIGHT.get()).isLessThanOrEqualTo(bound).isLessThan(n / 10);
    }

    @Test
    void recordsOfAnySizeStayWithinTheHeapBecauseChannelsAreBoundedByBytes() throws Exception {
        java.nio.file.Path log = java.nio.file.Files.createTempFile("big-records", ".log");
        Process child =
                dev.weir.testing.ChildJvm.start(
                        dev.weir.testing.BigRecordsChild.class,
                        null,
                        "-Xmx96m",
                        log.toFile(),
                        "300000");
        try {
            assertThat(child.waitFor(2, java.util.concurrent.TimeUnit.MINUTES)).isTrue();
            String output = java.nio.file.Files.readString(log);
            assertThat(child.exitValue()).as(output).isZero();
            assertThat(output).contains("DONE 300000").doesNotContain("OutOfMemoryError");
        } finally {
            child.destroyForcibly().waitFor();
            java.nio.file.Files.deleteIfExists(log);
        }
    }
}
