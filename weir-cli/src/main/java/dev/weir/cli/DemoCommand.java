package dev.weir.cli;

import dev.weir.api.Guarantee;
import dev.weir.api.JobHandle;
import dev.weir.api.JobListener;
import dev.weir.api.Pipeline;
import dev.weir.api.RestartStrategy;
import dev.weir.api.checkpoint.CheckpointConfig;
import dev.weir.api.checkpoint.CheckpointStats;
import dev.weir.api.checkpoint.CheckpointView;
import dev.weir.api.codec.Codecs;
import dev.weir.api.function.Collector;
import dev.weir.api.sink.CollectSink;
import dev.weir.api.sink.Sinks;
import dev.weir.api.source.ReadStatus;
import dev.weir.api.source.Source;
import dev.weir.api.source.SourceContext;
import dev.weir.api.source.SourceReader;
import dev.weir.dashboard.WeirDashboard;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code weir demo}: the lecture's story. The numbers 1..10 are summed into an even and an odd sum
 * in keyed state; a checkpoint completes right after record 5 ({offset 5, even 6, odd 9}); the job
 * crashes while processing 7, restores that checkpoint, replays 6 and 7, and ends with even 30, odd
 * 25.
 */
@Command(
        name = "demo",
        description =
                "Shows the weakest-link guarantee of three source/sink pairs under a crash, then"
                        + " runs the even/odd sum on 1..10 with a checkpoint after 5 and a crash"
                        + " at 7, and shows the restore.")
public final class DemoCommand implements Callable<Integer> {
    /** This command as picocli built it: usage errors name it in full ({@code weir ...}). */
    @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

    @Option(
            names = "--dir",
            description = "Checkpoint directory (default: a new temporary directory).")
    Path directory;

    @Option(
            names = "--runner",
            description =
                    "Where the lecture's story runs: local (Weir's runtime, default) or flink (a"
                            + " local Apache Flink cluster).")
    String runner = "local";

    @Option(
            names = "--dashboard",
            description =
                    "Serve a live dashboard of the even/odd job on 127.0.0.1, print its address,"
                            + " and keep it up for --dashboard-seconds after the job ends.")
    boolean dashboard;

    @Option(
            names = "--dashboard-port",
            paramLabel = "PORT",
            description = "Port of the dashboard (default: 0, any free port).")
    int dashboardPort;

    @Option(
            names = "--dashboard-seconds",
            paramLabel = "SECONDS",
            description = "How long the dashboard stays up after the job ends (default: 60).")
    int dashboardSeconds = 60;

    /** One update of a parity's running sum. */
    public record ParitySum(String parity, long sum) {}

    @Override
    public Integer call() throws Exception {
        Path dir = directory != null ? directory : Files.createTempDirectory("weir-demo-");
        if (dashboard && !runner.equals("local")) {
            throw new picocli.CommandLine.ParameterException(
                    spec.commandLine(),
                    "--dashboard shows Weir's own runtime; use it with --runner local");
        }
        if (runner.equals("flink")) {
            quietFlinkLogs();
            System.out.println("== consistent checkpoints on Apache Flink: the even/odd sums ==");
            Map<String, Long> result =
                    FlinkLectureStory.run(dir.resolve("lecture-flink"), System.out);
            System.out.println("RESULT even=" + result.get("even") + " odd=" + result.get("odd"));
            return 0;
        }
        if (!runner.equals("local")) {
            throw new picocli.CommandLine.ParameterException(
                    spec.commandLine(), "unknown --runner '" + runner + "'; use local or flink");
        }
        checkDashboardOptions();
        System.out.println("== weakest link: the same job with a crash, three ways ==");
        WeakestLinkStory.run(dir.resolve("weakest-link"), System.out);
        System.out.println("== consistent checkpoints: the lecture's even/odd sums ==");
        AtomicReference<WeirDashboard> served = new AtomicReference<>();
        Map<String, Long> result;
        try {
            result =
                    runLectureStory(
                            dir.resolve("lecture"),
                            System.out,
                            dashboard ? dashboardPort : -1,
                            served);
            System.out.println("RESULT even=" + result.get("even") + " odd=" + result.get("odd"));
            if (served.get() != null) {
                System.out.println(
                        "dashboard: the finished job stays observable at "
                                + served.get().uri()
                                + " for "
                                + dashboardSeconds
                                + " s (Ctrl-C to stop)");
                System.out.flush();
                // Waits on a latch nobody counts down: a plain timed wait, interruptible.
                new CountDownLatch(1).await(dashboardSeconds, TimeUnit.SECONDS);
            }
        } finally {
            if (served.get() != null) {
                served.get().close();
            }
        }
        return 0;
    }

    private void checkDashboardOptions() {
        if (dashboardPort < 0 || dashboardPort > 65_535) {
            throw new picocli.CommandLine.ParameterException(
                    spec.commandLine(),
                    "--dashboard-port must be 0 (any free port) to 65535, got " + dashboardPort);
        }
        if (dashboardSeconds < 0) {
            throw new picocli.CommandLine.ParameterException(
                    spec.commandLine(),
                    "--dashboard-seconds must be 0 or more, got " + dashboardSeconds);
        }
    }

    /** Flink logs its restarts at INFO and WARN; the story prints its own lines. */
    private static void quietFlinkLogs() {
        System.setProperty("org.slf4j.simpleLogger.log.org.apache.flink", "off");
        System.setProperty("org.slf4j.simpleLogger.log.org.apache.pekko", "off");
    }

    /** Runs the story with checkpoints in {@code dir}; returns the final sum per parity. */
    static Map<String, Long> runLectureStory(Path dir, PrintStream out) throws Exception {
        return runLectureStory(dir, out, -1, new AtomicReference<>());
    }

    /**
     * Runs the story; with {@code dashboardPort} 0 or more it also serves the job's dashboard on
     * that port (0: any free one), sets {@code dashboard} to it (the caller closes it) and prints
     * its address.
     */
    static Map<String, Long> runLectureStory(
            Path dir, PrintStream out, int dashboardPort, AtomicReference<WeirDashboard> dashboard)
            throws Exception {
        AtomicBoolean released = new AtomicBoolean();
        AtomicBoolean paused = new AtomicBoolean();
        AtomicBoolean crashed = new AtomicBoolean();
        CollectSink<ParitySum> sums = Sinks.collect();
        Pipeline pipeline =
                Pipeline.create("even-odd")
                        .checkpointing(CheckpointConfig.exactlyOnce(Duration.ZERO, dir))
                        .restartStrategy(RestartStrategy.fixedDelay(1, Duration.ofMillis(10)))
                        .listener(
                                new JobListener() {
                                    @Override
                                    public void onCheckpointComplete(CheckpointStats stats) {
                                        out.println(
                                                "checkpoint "
                                                        + stats.id()
                                                        + " complete: "
                                                        + describe(stats.path())
                                                        + " ("
                                                        + stats.sizeBytes()
                                                        + " bytes in "
                                                        + stats.tasks().size()
                                                        + " task files)");
                                    }

                                    @Override
                                    public void onFailure(
                                            Throwable cause, int attempt, boolean willRestart) {
                                        out.println(
                                                "crash: "
                                                        + cause.getMessage()
                                                        + (willRestart ? "; restarting" : ""));
                                    }

                                    @Override
                                    public void onRestore(long checkpointId, Path path) {
                                        out.println(
                                                "restored checkpoint "
                                                        + checkpointId
                                                        + ": "
                                                        + describe(path)
                                                        + "; replaying from offset 5");
                                    }
                                });
        pipeline.source("numbers", new GatedSequence(10, 5, released, paused))
                .keyBy(n -> n % 2 == 0 ? "even" : "odd")
                .<Long, ParitySum>process(
                        "sum",
                        Codecs.LONG,
                        (parity, n, sum, collector) -> {
                            if (n == 7 && crashed.compareAndSet(false, true)) {
                                throw new IllegalStateException(
                                        "injected failure while processing 7");
                            }
                            long next = (sum.value() == null ? 0 : sum.value()) + n;
                            sum.update(next);
                            out.println("  processed " + n + " -> " + parity + "=" + next);
                            collector.collect(new ParitySum(parity, next));
                        })
                .sink("sums", sums);
        out.println(
                "job: numbers 1..10 -> keyBy(parity) -> running sum in keyed state;"
                        + " exactly-once checkpoints in "
                        + dir);
        if (dashboardPort >= 0) {
            WeirDashboard.recordFailures(pipeline);
        }
        JobHandle job = pipeline.start();
        if (dashboardPort >= 0) {
            dashboard.set(WeirDashboard.start(job, pipeline, dashboardPort));
            out.println("dashboard: " + dashboard.get().uri());
        }
        while (!paused.get()) {
            Thread.onSpinWait();
        }
        job.triggerCheckpoint().get();
        released.set(true);
        job.await();
        Map<String, Long> latest = new TreeMap<>(Map.of("even", 0L, "odd", 0L));
        List<ParitySum> updates = sums.results();
        for (ParitySum update : updates) {
            latest.put(update.parity(), update.sum());
        }
        return latest;
    }

    static String describe(Path checkpoint) {
        CheckpointView view = CheckpointView.open(checkpoint);
        long offset = view.offsets("numbers").values().stream().mapToLong(Long::longValue).sum();
        Map<Object, Long> sums = view.valueState("sum", "value", Codecs.LONG);
        return "offset="
                + offset
                + " even="
                + sums.getOrDefault("even", 0L)
                + " odd="
                + sums.getOrDefault("odd", 0L);
    }

    /**
     * 1..{@code to} as one replayable split, which holds back after {@code pauseAfter} until
     * released, so the demo can checkpoint at exactly that offset; optionally says where a restore
     * makes it resume.
     */
    static final class GatedSequence implements Source<Long> {
        private static final long serialVersionUID = 1L;
        private final long to;
        private final long pauseAfter;
        private final AtomicBoolean released;
        private final AtomicBoolean paused;

        /** Told each restored position, or null. */
        private final transient java.util.function.LongConsumer onSeek;

        GatedSequence(long to, long pauseAfter, AtomicBoolean released, AtomicBoolean paused) {
            this(to, pauseAfter, released, paused, null);
        }

        GatedSequence(
                long to,
                long pauseAfter,
                AtomicBoolean released,
                AtomicBoolean paused,
                java.util.function.LongConsumer onSeek) {
            this.to = to;
            this.pauseAfter = pauseAfter;
            this.released = released;
            this.paused = paused;
            this.onSeek = onSeek;
        }

        @Override
        public String kind() {
            return "sequence";
        }

        @Override
        public boolean isReplayable() {
            return true;
        }

        @Override
        public Guarantee guarantee() {
            return Guarantee.EXACTLY_ONCE;
        }

        @Override
        public List<String> splits(int parallelism) {
            return List.of("numbers");
        }

        @Override
        public SourceReader<Long> openReader(String split, SourceContext context) {
            return new SourceReader<>() {
                private long emitted;

                @Override
                public ReadStatus poll(Collector<Long> collector, int maxRecords) {
                    for (int i = 0; i < maxRecords && emitted < to; i++) {
                        if (emitted == pauseAfter && !released.get()) {
                            paused.set(true);
                            return ReadStatus.NOTHING_AVAILABLE;
                        }
                        collector.collect(++emitted);
                    }
                    return emitted >= to ? ReadStatus.END_OF_INPUT : ReadStatus.MORE_AVAILABLE;
                }

                @Override
                public long position() {
                    return emitted;
                }

                @Override
                public void seek(long position) throws IOException {
                    if (onSeek != null) {
                        onSeek.accept(position);
                    }
                    emitted = position;
                }
            };
        }
    }
}
