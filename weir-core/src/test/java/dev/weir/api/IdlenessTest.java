package dev.weir.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.api.codec.Codecs;
import dev.weir.api.log.DurableLog;
import dev.weir.api.log.LogOptions;
import dev.weir.api.sink.CollectSink;
import dev.weir.api.sink.Sinks;
import dev.weir.api.source.Sources;
import dev.weir.api.time.WatermarkStrategy;
import dev.weir.api.window.WindowAssigner;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code WatermarkStrategy.withIdleness}: an input without records does not stall event time. */
class IdlenessTest {
    @TempDir Path dir;

    @Test
    void windowsFireWhileAPartitionWithoutRecordsIsIdle() throws Exception {
        Path logDir = dir.resolve("log");
        try (DurableLog log = DurableLog.open(logDir, LogOptions.defaults())) {
            log.createTopic("numbers", 2);
            List<byte[]> records = new ArrayList<>();
            for (long v = 0; v < 100; v++) {
                records.add(Codecs.LONG.toBytes(v));
            }
            log.append("numbers", 0, records); // partition 1 stays empty
            log.flush();
        }
        Pipeline pipeline =
                Pipeline.create("idleness")
                        .parallelism(2)
                        .autoWatermarkInterval(Duration.ofMillis(2));
        CollectSink<Long> sums = Sinks.collect();
        pipeline.source("numbers", Sources.logUnbounded(logDir, "numbers", Codecs.LONG))
                .assignTimestampsAndWatermarks(
                        WatermarkStrategy.<Long>forMonotonousTimestamps()
                                .withTimestampAssigner((v, previous) -> v)
                                .withIdleness(Duration.ofMillis(20)))
                .keyBy(v -> v % 2)
                .window(WindowAssigner.tumbling(Duration.ofMillis(10)))
                .reduce("sums", Long::sum, Codecs.LONG)
                .sink("out", sums);
        JobHandle job = pipeline.start();
        try {
            // Without idleness the empty partition's subtask holds the watermark at its minimum
            // forever and no window fires; with it, all but the last window (whose end the
            // watermark 98 has not passed) fire: keys 0 and 1 in [0,10) .. [80,90).
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (sums.results().size() < 18) {
                assertThat(job.isDone()).as("the unbounded job ended").isFalse();
                assertThat(System.nanoTime()).as("windows fired within 30 s").isLessThan(deadline);
                Thread.onSpinWait();
            }
        } finally {
            job.cancel();
        }
        assertThat(sums.results().stream().mapToLong(Long::longValue).sum())
                .isEqualTo((0 + 89) * 90 / 2);
    }
}
