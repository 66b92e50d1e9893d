package dev.weir.testing;

import dev.weir.api.JobListener;
import dev.weir.api.Pipeline;
import dev.weir.api.checkpoint.CheckpointConfig;
import dev.weir.api.checkpoint.CheckpointStats;
import dev.weir.api.codec.Codecs;
import dev.weir.api.sink.FileSink;
import dev.weir.api.source.Source;
import dev.weir.internal.checkpoint.RestoredCheckpoint;
import dev.weir.internal.checkpoint.SplitState;
import java.io.ObjectInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * The job of the replayable-source conformance suite's new-process tests: counts each line of a
 * serialised source by key (the line's prefix before '-') into a FileSink as {@code line,count},
 * with exactly-once checkpoints, resuming from the latest checkpoint. With {@code halt}, the JVM
 * halts (no clean-up, like SIGKILL) right after the first checkpoint that holds an ended split
 * completes, so the next run restores a checkpoint with an ended split.
 *
 * <p>Arguments: serialised source file, checkpoint directory, output directory, {@code halt} or
 * {@code run}.
 */
public final class SourceCrashChild {
    private SourceCrashChild() {}

    public static void main(String[] args) throws Exception {
        Source<String> source;
        try (ObjectInputStream in = new ObjectInputStream(Files.newInputStream(Path.of(args[0])))) {
            @SuppressWarnings("unchecked")
            Source<String> read = (Source<String>) in.readObject();
            source = read;
        }
        boolean halt = args[3].equals("halt");
        Pipeline pipeline =
                Pipeline.create("source-crash")
                        .parallelism(2)
                        .batchSize(16)
                        .channelCapacityBatches(4)
                        .checkpointing(
                                CheckpointConfig.exactlyOnce(
                                        Duration.ofMillis(5), Path.of(args[1])))
                        .listener(
                                new JobListener() {
                                    @Override
                                    public void onCheckpointComplete(CheckpointStats stats) {
                                        if (halt && holdsAnEndedSplit(stats.path())) {
                                            System.out.println("HALT " + stats.id());
                                            System.out.flush();
                                            Runtime.getRuntime().halt(137);
                                        }
                                    }
                                });
        pipeline.source("input", source)
                .map(SourceCrashChild::throttle)
                .keyBy(line -> line.substring(0, line.indexOf('-')))
                .<Long, String>process(
                        "count",
                        Codecs.LONG,
                        (key, line, state, out) -> {
                            long next = (state.value() == null ? 0 : state.value()) + 1;
                            state.update(next);
                            out.collect(line + "," + next);
                        })
                .sink("out", FileSink.<String>to(Path.of(args[2])).rollBytes(4096));
        pipeline.run();
        System.out.println("DONE");
    }

    /** Slows the long split down so checkpoints complete while it still runs. */
    public static String throttle(String line) {
        if (line.hashCode() % 16 == 0) {
            java.util.concurrent.locks.LockSupport.parkNanos(50_000);
        }
        return line;
    }

    public static boolean holdsAnEndedSplit(Path checkpoint) {
        RestoredCheckpoint restored = RestoredCheckpoint.load(checkpoint);
        for (Map<String, SplitState> splits : restored.splits().values()) {
            for (SplitState split : splits.values()) {
                if (split.ended()) {
                    return true;
                }
            }
        }
        return false;
    }
}
