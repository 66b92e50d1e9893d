package dev.weir.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.api.JobHandle;
import dev.weir.api.Pipeline;
import dev.weir.api.checkpoint.CheckpointConfig;
import dev.weir.api.checkpoint.CheckpointView;
import dev.weir.api.codec.Codecs;
import dev.weir.api.log.DurableLog;
import dev.weir.api.log.LogOptions;
import dev.weir.api.sink.FileSink;
import dev.weir.api.sink.LogSink;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code weir inspect} on a checkpoint taken at a known point of a job. */
class InspectCommandTest {
    @TempDir Path dir;

    Path checkpoints;

    /**
     * The numbers 1..10, keyed by parity and summed, written to a file sink and a log sink; one
     * checkpoint taken after record 5 (offset 5, even 6, odd 9).
     */
    @BeforeEach
    void runAJobWithOneCheckpointAfterFive() throws Exception {
        checkpoints = dir.resolve("chk");
        try (DurableLog log = DurableLog.open(dir.resolve("log"), LogOptions.defaults())) {
            log.createTopic("sums", 1);
        }
        AtomicBoolean released = new AtomicBoolean();
        AtomicBoolean paused = new AtomicBoolean();
        Pipeline pipeline =
                Pipeline.create("inspected")
                        .checkpointing(CheckpointConfig.exactlyOnce(Duration.ZERO, checkpoints));
        var sums =
                pipeline.source("numbers", new DemoCommand.GatedSequence(10, 5, released, paused))
                        .keyBy(n -> n % 2 == 0 ? "even" : "odd")
                        .reduce("sum", Long::sum);
        sums.sink("files", FileSink.<Long>to(dir.resolve("out")));
        sums.sink("log", LogSink.to(dir.resolve("log"), "sums", Codecs.LONG));
        JobHandle job = pipeline.start();
        while (!paused.get()) {
            Thread.onSpinWait();
        }
        job.triggerCheckpoint().get();
        released.set(true);
        job.await();
    }

    @Test
    void showsOffsetsSplitStatesKeyedStatesSizesAndSinkTransactions() {
        Path first = checkpoints.resolve("chk-00000000001");
        Cli.Result result = Cli.run("", "inspect", first.toString(), "--values");
        assertThat(result.err()).isEmpty();
        assertThat(result.status()).isZero();
        String out = result.out();
        assertThat(out)
                .startsWith("checkpoint 1 of job 'inspected' in " + first)
                .contains("source numbers\n  split numbers offset=5 running\n")
                .contains(
                        "operator sum keys=2 operator_state_bytes=9\n",
                        "  value state value codec weir.auto\n    even = 6\n    odd = 9\n")
                .contains(
                        "operator files keys=0 operator_state_bytes=",
                        "  FileSink transactions a restore would commit:\n"
                                + "    checkpoint 1: 1 file(s) to publish as [part-0-00000000001-0.txt]")
                .contains(
                        "  LogSink transactions a restore would commit:\n"
                                + "    checkpoint 1: transaction ");
        assertThat(out)
                .containsPattern(
                        "\ntriggered 20\\d\\d-\\S+Z, max parallelism 128, [1-9]\\d* bytes in"
                                + " [1-9]\\d* files\n  file \\S+ [1-9]\\d*\n");
    }

    @Test
    void aJobsCheckpointDirectoryShowsItsNewestCompleteCheckpoint() {
        long newest = CheckpointView.latest(checkpoints).orElseThrow().id();
        Cli.Result result = Cli.run("", "inspect", checkpoints.toString());
        assertThat(result.status()).isZero();
        assertThat(result.out())
                .startsWith("checkpoint " + newest + " of job 'inspected'")
                .contains("  split numbers offset=10 ended\n")
                .doesNotContain("even = ");
    }

    @Test
    void aDirectoryWithoutACheckpointIsOneLineAndStatusOne() {
        Cli.Result result = Cli.run("", "inspect", dir.resolve("out").toString());
        assertThat(result.status()).isEqualTo(1);
        assertThat(result.err()).startsWith("weir inspect: no complete checkpoint in ");
        assertThat(result.err()).hasLineCount(1);
    }
}
