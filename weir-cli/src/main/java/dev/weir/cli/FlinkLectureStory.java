package dev.weir.cli;

import dev.weir.api.JobHandle;
import dev.weir.api.JobListener;
import dev.weir.api.Pipeline;
import dev.weir.api.RestartStrategy;
import dev.weir.api.checkpoint.CheckpointConfig;
import dev.weir.api.checkpoint.CheckpointStats;
import dev.weir.api.codec.Codecs;
import dev.weir.api.sink.CollectSink;
import dev.weir.api.sink.Sinks;
import dev.weir.cli.DemoCommand.ParitySum;
import dev.weir.flink.FlinkRunner;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code weir demo --runner flink}: the lecture's story with the same Weir pipeline on a local
 * Flink cluster ({@code FlinkRunner.local(1)}). Flink's client cannot trigger a checkpoint on
 * demand, so the source holds back after 5 until a checkpoint <em>triggered after the pause</em>
 * has completed (its barrier therefore follows record 5); then the job crashes at 7, Flink restores
 * that checkpoint (the source is told to seek to offset 5, the sums read back 6 and 9), replays 6
 * and 7, and ends with even 30, odd 25.
 */
final class FlinkLectureStory {
    private FlinkLectureStory() {}

    /** Runs the story with Flink checkpoints in {@code dir}; returns the final sum per parity. */
    static Map<String, Long> run(Path dir, PrintStream out) throws Exception {
        AtomicBoolean released = new AtomicBoolean();
        AtomicBoolean paused = new AtomicBoolean();
        AtomicBoolean crashed = new AtomicBoolean();
        AtomicLong lastCompleted = new AtomicLong();
        Map<String, Long> seen = new ConcurrentHashMap<>(Map.of("even", 0L, "odd", 0L));
        Map<String, Boolean> readBack = new ConcurrentHashMap<>();
        CollectSink<ParitySum> sums = Sinks.collect();
        Pipeline pipeline =
                Pipeline.create("even-odd")
                        .parallelism(1)
                        .checkpointing(
                                CheckpointConfig.exactlyOnce(Duration.ofMillis(20), dir)
                                        .withMaxConcurrent(1))
                        .restartStrategy(RestartStrategy.fixedDelay(1, Duration.ofMillis(10)))
                        .listener(
                                new JobListener() {
                                    @Override
                                    public void onCheckpointComplete(CheckpointStats stats) {
                                        lastCompleted.accumulateAndGet(stats.id(), Math::max);
                                    }
                                });
        pipeline.source(
                        "numbers",
                        new DemoCommand.GatedSequence(
                                10,
                                5,
                                released,
                                paused,
                                position ->
                                        out.println(
                                                "restored Flink's checkpoint: offset="
                                                        + position
                                                        + "; replaying from offset "
                                                        + position)))
                .keyBy(n -> n % 2 == 0 ? "even" : "odd")
                .<Long, ParitySum>process(
                        "sum",
                        Codecs.LONG,
                        (parity, n, sum, collector) -> {
                            if (crashed.get() && readBack.putIfAbsent(parity, true) == null) {
                                out.println(
                                        "  state read back from the checkpoint: "
                                                + parity
                                                + "="
                                                + (sum.value() == null ? 0 : sum.value()));
                            }
                            if (n == 7 && crashed.compareAndSet(false, true)) {
                                out.println(
                                        "crash: injected failure while processing 7;"
                                                + " Flink restarts the job");
                                throw new IllegalStateException(
                                        "injected failure while processing 7");
                            }
                            long next = (sum.value() == null ? 0 : sum.value()) + n;
                            sum.update(next);
                            seen.put(parity, next);
                            out.println("  processed " + n + " -> " + parity + "=" + next);
                            collector.collect(new ParitySum(parity, next));
                        })
                .sink("sums", sums);
        out.println(
                "job: numbers 1..10 -> keyBy(parity) -> running sum in keyed state, on a local"
                        + " Flink cluster; exactly-once checkpoints in "
                        + dir);
        JobHandle job = pipeline.start(FlinkRunner.local(1));
        while (!paused.get()) {
            Thread.onSpinWait();
        }
        // A checkpoint pending at the pause may have its barrier before record 5; with one
        // checkpoint at a time, any id from (newest complete now) + 2 was triggered after it.
        long coveringFive = lastCompleted.get() + 2;
        while (lastCompleted.get() < coveringFive && !job.isDone()) {
            Thread.onSpinWait();
        }
        out.println(
                "checkpoint "
                        + lastCompleted.get()
                        + " complete (Flink): offset=5 even="
                        + seen.get("even")
                        + " odd="
                        + seen.get("odd"));
        released.set(true);
        job.await();
        Map<String, Long> latest = new TreeMap<>(Map.of("even", 0L, "odd", 0L));
        List<ParitySum> updates = sums.results();
        for (ParitySum update : updates) {
            latest.put(update.parity(), update.sum());
        }
        return latest;
    }
}
