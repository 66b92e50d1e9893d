package dev.weir.examples;

import dev.weir.api.Guarantee;
import dev.weir.api.Pipeline;
import dev.weir.api.checkpoint.CheckpointConfig;
import dev.weir.api.codec.Codec;
import dev.weir.api.codec.Codecs;
import dev.weir.api.function.AggregateFunction;
import dev.weir.api.log.DurableLog;
import dev.weir.api.log.LogOptions;
import dev.weir.api.log.LogRecord;
import dev.weir.api.sink.LogSink;
import dev.weir.api.source.Sources;
import dev.weir.api.time.WatermarkStrategy;
import dev.weir.api.window.WindowAssigner;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Page views per page and 10-second window, from one topic of the embedded durable log into
 * another, exactly-once.
 *
 * <p>Shows event time assigned right at the source ({@code Pipeline.source(name, source,
 * watermarks)}): each partition of the {@code views} topic is a split with its own timestamp
 * assigner and watermark generator, so a partition read ahead does not make another's records late.
 * Then a keyed tumbling window counts each page's views incrementally ({@link AggregateFunction},
 * one {@code long} per window in keyed state), and {@link LogSink} appends the counts to the {@code
 * view-counts} topic in one log transaction per checkpoint, which readers such as {@code
 * Sources.log} or {@code weir log tail} see only once it commits.
 *
 * <p>Run: {@code java -cp ... dev.weir.examples.WindowedLogCounts <log dir> <checkpoint dir>}; when
 * the log has no {@code views} topic the example first writes some sample views into it.
 */
public final class WindowedLogCounts {
    /** The input topic. */
    public static final String VIEWS = "views";

    /** The output topic. */
    public static final String COUNTS = "view-counts";

    /** The window length. */
    public static final Duration WINDOW = Duration.ofSeconds(10);

    /** How far out of order a partition's view times may be. */
    public static final Duration OUT_OF_ORDERNESS = Duration.ofSeconds(2);

    /** A view of {@code page} at {@code timeMillis} (event time). */
    public record PageView(String page, long timeMillis) {}

    /** The number of views of {@code page} in the window starting at {@code windowStart}. */
    public record WindowCount(String page, long windowStart, long count) {}

    /** The codec of the input topic's records. */
    public static final Codec<PageView> VIEW_CODEC = Codecs.record(PageView.class);

    /** The codec of the output topic's records. */
    public static final Codec<WindowCount> COUNT_CODEC = Codecs.record(WindowCount.class);

    private WindowedLogCounts() {}

    /** Counts records. */
    static final class CountViews implements AggregateFunction<PageView, Long, Long> {
        private static final long serialVersionUID = 1L;

        @Override
        public Long createAccumulator() {
            return 0L;
        }

        @Override
        public Long add(PageView view, Long count) {
            return count + 1;
        }

        @Override
        public Long getResult(Long count) {
            return count;
        }
    }

    /**
     * Builds the pipeline reading {@value #VIEWS} and writing {@value #COUNTS} in the log at {@code
     * log} (both topics must exist).
     */
    public static Pipeline pipeline(Path log, Path checkpoints) {
        Pipeline pipeline =
                Pipeline.create("windowed-log-counts")
                        .parallelism(2)
                        .checkpointing(
                                CheckpointConfig.exactlyOnce(Duration.ofMillis(200), checkpoints));
        pipeline.source(
                        "views",
                        Sources.log(log, VIEWS, VIEW_CODEC),
                        WatermarkStrategy.<PageView>forBoundedOutOfOrderness(OUT_OF_ORDERNESS)
                                .withTimestampAssigner((view, previous) -> view.timeMillis()))
                .keyBy(PageView::page)
                .window(WindowAssigner.tumbling(WINDOW))
                .<Long, Long, WindowCount>aggregate(
                        "views-per-window",
                        new CountViews(),
                        Codecs.LONG,
                        (page, context, counts, out) ->
                                out.collect(
                                        new WindowCount(
                                                page,
                                                context.window().start(),
                                                counts.iterator().next())))
                .sink(
                        "counts",
                        LogSink.to(log, COUNTS, COUNT_CODEC).partitionBy(WindowCount::page));
        return pipeline.requireGuarantee(Guarantee.EXACTLY_ONCE);
    }

    /**
     * Appends {@code perPartition} views to each of {@code partitions} partitions of a new {@value
     * #VIEWS} topic, seeded: within a partition times grow, each up to 0.5 s out of order.
     */
    public static List<PageView> writeSampleViews(
            Path log, int partitions, int perPartition, long seed) {
        List<String> pages = List.of("/", "/docs", "/pricing", "/blog", "/about");
        Random random = new Random(seed);
        List<PageView> all = new ArrayList<>();
        try (DurableLog durable = DurableLog.open(log, LogOptions.defaults())) {
            durable.createTopic(VIEWS, partitions);
            for (int p = 0; p < partitions; p++) {
                long time = 1_700_000_000_000L;
                List<byte[]> records = new ArrayList<>();
                for (int i = 0; i < perPartition; i++) {
                    time += random.nextInt(200);
                    PageView view =
                            new PageView(
                                    pages.get(random.nextInt(pages.size())),
                                    time - random.nextInt(500));
                    all.add(view);
                    records.add(VIEW_CODEC.toBytes(view));
                }
                durable.append(VIEWS, p, records);
            }
            durable.flush();
        }
        return all;
    }

    /** Creates the {@value #COUNTS} topic with {@code partitions} partitions if it is missing. */
    public static void createCountsTopic(Path log, int partitions) {
        try (DurableLog durable = DurableLog.open(log, LogOptions.defaults())) {
            durable.createTopic(COUNTS, partitions);
        }
    }

    /** Every committed record of {@value #COUNTS}, partition by partition. */
    public static List<WindowCount> readCounts(Path log) {
        List<WindowCount> counts = new ArrayList<>();
        try (DurableLog durable = DurableLog.openReadOnly(log, LogOptions.defaults())) {
            for (int p = 0; p < durable.partitions(COUNTS); p++) {
                long offset = 0;
                while (true) {
                    List<LogRecord> batch = durable.read(COUNTS, p, offset, 1_000);
                    if (batch.isEmpty()) {
                        break;
                    }
                    for (LogRecord record : batch) {
                        counts.add(COUNT_CODEC.fromBytes(record.payload()));
                    }
                    offset = batch.get(batch.size() - 1).offset() + 1;
                }
            }
        }
        return counts;
    }

    /**
     * Counts the views in {@code args[0]}'s log into its {@value #COUNTS} topic and prints them.
     */
    public static void main(String[] args) throws InterruptedException {
        if (args.length != 2) {
            System.err.println("usage: WindowedLogCounts <log dir> <checkpoint dir>");
            System.exit(2);
        }
        Path log = Path.of(args[0]);
        boolean hasViews;
        try (DurableLog durable = DurableLog.open(log, LogOptions.defaults())) {
            hasViews = durable.hasTopic(VIEWS);
        }
        if (!hasViews) {
            writeSampleViews(log, 3, 10_000, 1);
        }
        createCountsTopic(log, 2);
        pipeline(log, Path.of(args[1])).run();
        readCounts(log).forEach(System.out::println);
    }
}
