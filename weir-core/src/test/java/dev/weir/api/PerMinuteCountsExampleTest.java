package dev.weir.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.api.checkpoint.CheckpointConfig;
import dev.weir.api.codec.Codecs;
import dev.weir.api.function.AggregateFunction;
import dev.weir.api.log.DurableLog;
import dev.weir.api.log.LogOptions;
import dev.weir.api.sink.FileSink;
import dev.weir.api.source.Sources;
import dev.weir.api.time.WatermarkStrategy;
import dev.weir.api.window.WindowAssigner;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The README's windowed example, run: per-minute counts of clicks from the log into a FileSink. */
class PerMinuteCountsExampleTest {
    @TempDir Path dir;

    /** A click on a page at a time. */
    public record Click(String page, long timeMillis) {}

    /** Counts clicks. */
    static final class CountClicks implements AggregateFunction<Click, Long, Long> {
        @Override
        public Long createAccumulator() {
            return 0L;
        }

        @Override
        public Long add(Click click, Long count) {
            return count + 1;
        }

        @Override
        public Long getResult(Long count) {
            return count;
        }
    }

    @Test
    void countsEachPageOncePerMinuteIntoAFileSink() throws Exception {
        long minute = 60_000;
        List<Click> clicks = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            clicks.add(new Click(i % 2 == 0 ? "/home" : "/cart", i * 1_000L)); // 5 minutes
        }
        try (DurableLog log = DurableLog.open(dir.resolve("log"), LogOptions.defaults())) {
            log.createTopic("clicks", 2);
            List<byte[]> records = new ArrayList<>();
            for (Click click : clicks) {
                records.add(Codecs.record(Click.class).toBytes(click));
            }
            log.append("clicks", 0, records);
            log.flush();
        }

        // The README's example, with its paths under the test's directory.
        Pipeline pipeline =
                Pipeline.create("clicks-per-minute")
                        .parallelism(2)
                        .checkpointing(
                                CheckpointConfig.exactlyOnce(
                                        Duration.ofSeconds(1), dir.resolve("chk")));
        OutputTag<Click> late = OutputTag.of("late");
        DataStream<String> counts =
                pipeline.source(
                                "clicks",
                                Sources.log(
                                        dir.resolve("log"), "clicks", Codecs.record(Click.class)))
                        .assignTimestampsAndWatermarks(
                                WatermarkStrategy.<Click>forBoundedOutOfOrderness(
                                                Duration.ofSeconds(5))
                                        .withTimestampAssigner(
                                                (click, previous) -> click.timeMillis())
                                        .withIdleness(Duration.ofSeconds(30)))
                        .keyBy(Click::page)
                        .window(WindowAssigner.tumbling(Duration.ofMinutes(1)))
                        .sideOutputLateData(late)
                        .<Long, Long, String>aggregate(
                                "per-minute",
                                new CountClicks(),
                                Codecs.LONG,
                                (page, context, count, out) ->
                                        out.collect(
                                                page
                                                        + ","
                                                        + context.window().start()
                                                        + ","
                                                        + count.iterator().next()));
        counts.sink("counts", FileSink.to(dir.resolve("out/counts")));
        counts.sideOutput(late)
                .map(Click::toString)
                .sink("late", FileSink.to(dir.resolve("out/late")));
        pipeline.run();

        List<String> expected = new ArrayList<>();
        for (long start = 0; start < 5 * minute; start += minute) {
            expected.add("/home," + start + ",30");
            expected.add("/cart," + start + ",30");
        }
        assertThat(FileSink.readCommitted(dir.resolve("out/counts")))
                .containsExactlyInAnyOrderElementsOf(expected);
        // In order within 5 s: nothing late (WindowsTest shows late records, with watermarks placed
        // exactly; here they are periodic, so whether a record is late depends on timing).
        assertThat(FileSink.readCommitted(dir.resolve("out/late"))).isEmpty();
    }
}
