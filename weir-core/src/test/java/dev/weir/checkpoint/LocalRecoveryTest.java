package dev.weir.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.api.JobFailedException;
import dev.weir.api.JobListener;
import dev.weir.api.Pipeline;
import dev.weir.api.RestartStrategy;
import dev.weir.api.checkpoint.CheckpointConfig;
import dev.weir.api.checkpoint.CheckpointStats;
import dev.weir.api.codec.Codecs;
import dev.weir.api.sink.CollectSink;
import dev.weir.api.sink.Sinks;
import dev.weir.api.source.Sources;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A restart in the same process restores the newest checkpoint from the snapshots its files were
 * written from: shown by deleting the state files as each checkpoint completes (the manifest
 * stays).
 */
class LocalRecoveryTest {
    static final long N = 100_000;
    static final long KEYS = 100;

    @TempDir Path dir;

    /** Runs keyed running sums over 1..N with one failure after a checkpoint completed. */
    CollectSink<String> run(boolean localRecovery) throws Exception {
        AtomicInteger completed = new AtomicInteger();
        AtomicBoolean failed = new AtomicBoolean();
        CollectSink<String> out = Sinks.collect();
        Pipeline pipeline =
                Pipeline.create("local-recovery")
                        .parallelism(2)
                        .localRecovery(localRecovery)
                        .checkpointing(
                                CheckpointConfig.exactlyOnce(
                                                Duration.ofMillis(10), dir.resolve("chk"))
                                        .withMinPause(Duration.ofMillis(10)))
                        .restartStrategy(RestartStrategy.fixedDelay(1, Duration.ZERO))
                        .listener(
                                new JobListener() {
                                    @Override
                                    public void onCheckpointComplete(CheckpointStats stats) {
                                        deleteStateFiles(stats.path());
                                        completed.incrementAndGet();
                                    }

                                    @Override
                                    public void onFailure(
                                            Throwable cause, int attempt, boolean willRestart) {
                                        if (!localRecovery) {
                                            // The tasks have stopped, so no checkpoint completes
                                            // now. One whose manifest was being written as the
                                            // attempt stopped can be complete on disk without
                                            // this listener having heard of it: its files go
                                            // here, before the restart reads them.
                                            deleteAllStateFiles(dir.resolve("chk"));
                                        }
                                    }
                                });
        pipeline.source("numbers", Sources.sequence(1, N, 2, 200_000))
                .map(
                        n -> {
                            if (n > N / 2
                                    && completed.get() > 0
                                    && failed.compareAndSet(false, true)) {
                                throw new IllegalStateException("injected failure at " + n);
                            }
                            return n;
                        })
                .keyBy(n -> n % KEYS)
                .<Long, String>process(
                        "sum",
                        Codecs.LONG,
                        (key, n, sum, o) -> {
                            Long current = sum.value();
                            long next = (current == null ? 0 : current) + n;
                            sum.update(next);
                            o.collect(key + ":" + next);
                        })
                .sink("out", out);
        pipeline.run();
        assertThat(failed).isTrue();
        return out;
    }

    static void deleteAllStateFiles(Path checkpoints) {
        try (Stream<Path> all = Files.list(checkpoints)) {
            for (Path checkpoint : all.filter(Files::isDirectory).toList()) {
                deleteStateFiles(checkpoint);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void deleteStateFiles(Path checkpoint) {
        try (Stream<Path> files = Files.list(checkpoint)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".state")).toList()) {
                Files.deleteIfExists(file);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void aRestartRestoresTheNewestCheckpointWithoutReadingItsFiles() throws Exception {
        CollectSink<String> out = run(true);

        Map<Long, Long> totals = new HashMap<>();
        for (long n = 1; n <= N; n++) {
            totals.merge(n % KEYS, n, Long::sum);
        }
        // The sink is not transactional, so updates after the checkpoint repeat; each key's last
        // sum is its exact total only if the restore brought back the right sums and offsets.
        Map<Long, Long> last = new HashMap<>();
        for (String update : out.results()) {
            int colon = update.indexOf(':');
            last.put(
                    Long.parseLong(update.substring(0, colon)),
                    Long.parseLong(update.substring(colon + 1)));
        }
        assertThat(last).isEqualTo(totals);
    }

    @Test
    void withoutLocalRecoveryTheRestartNeedsTheFiles() {
        assertThatThrownBy(() -> run(false)).isInstanceOf(JobFailedException.class);
    }
}
