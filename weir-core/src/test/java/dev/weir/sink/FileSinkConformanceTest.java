package dev.weir.sink;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.api.JobHandle;
import dev.weir.api.Pipeline;
import dev.weir.api.checkpoint.CheckpointConfig;
import dev.weir.api.sink.FileSink;
import dev.weir.api.sink.RecordFormat;
import dev.weir.api.sink.Sink;
import dev.weir.api.source.Sources;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.stream.Stream;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;

class FileSinkConformanceTest extends ExactlyOnceSinkConformance {
    @Override
    protected Sink<String> createSink(Path output) {
        return FileSink.<String>to(output).rollBytes(4096);
    }

    @Override
    protected List<String> readCommitted(Path output) throws Exception {
        return FileSink.readCommitted(output);
    }

    @Override
    protected List<String> dangling(Path output) throws Exception {
        try (Stream<Path> files = Files.list(output)) {
            return files.map(p -> p.getFileName().toString())
                    .filter(n -> n.startsWith("."))
                    .toList();
        }
    }

    record Trade(String symbol, long quantity, double price, String note) {}

    @Test
    void writesLinesByDefaultAndAnyRecordFormatWithItsHeaderInEveryFile() throws Exception {
        List<Trade> trades = List.of(new Trade("ACME", 5, 1.5, "plain"), new Trade("X", 1, 2, ""));
        Path lines = temp.resolve("lines");
        Pipeline pipeline = Pipeline.create("formats");
        pipeline.source("trades", Sources.collection(trades)).sink("out", FileSink.to(lines));
        pipeline.run();
        assertThat(FileSink.readCommitted(lines))
                .containsExactly(
                        "Trade[symbol=ACME, quantity=5, price=1.5, note=plain]",
                        "Trade[symbol=X, quantity=1, price=2.0, note=]");

        Path custom = temp.resolve("custom");
        RecordFormat<Trade> symbols =
                new RecordFormat<>() {
                    @Override
                    public String suffix() {
                        return ".sym";
                    }

                    @Override
                    public String header() {
                        return "symbol";
                    }

                    @Override
                    public String format(Trade trade) {
                        return trade.symbol();
                    }
                };
        Pipeline second = Pipeline.create("formats");
        second.source("trades", Sources.collection(trades))
                .sink("out", FileSink.<Trade>to(custom).format(symbols).rollBytes(1));
        second.run();
        try (Stream<Path> files = Files.list(custom)) {
            List<Path> finished = files.sorted().toList();
            assertThat(finished).hasSize(2).allMatch(p -> p.toString().endsWith(".sym"));
            assertThat(Files.readAllLines(finished.get(0))).containsExactly("symbol", "ACME");
            assertThat(Files.readAllLines(finished.get(1))).containsExactly("symbol", "X");
        }
    }

    @Test
    void aReaderNeverSeesDataBeforeItsCheckpointCompletes() throws Exception {
        Path out = temp.resolve("live");
        Pipeline pipeline =
                Pipeline.create("live")
                        .checkpointing(
                                CheckpointConfig.exactlyOnce(Duration.ZERO, temp.resolve("chk")));
        pipeline.source("numbers", Sources.sequence(1, Long.MAX_VALUE - 1, 1, 20_000))
                .map(n -> Long.toString(n))
                .sink("out", FileSink.<String>to(out).rollBytes(1000));
        JobHandle job = pipeline.start();
        try {
            while (!Files.exists(out) || dangling(out).isEmpty()) {
                if (job.isDone()) {
                    job.await();
                }
                Thread.onSpinWait();
            }
            assertThat(FileSink.readCommitted(out))
                    .as("nothing committed before a checkpoint")
                    .isEmpty();
            job.triggerCheckpoint().get();
            // Phase 2 runs on the sink task right after the checkpoint is durable.
            List<String> committed = FileSink.readCommitted(out);
            while (committed.isEmpty() && !job.isDone()) {
                committed = FileSink.readCommitted(out);
            }
            assertThat(committed).isNotEmpty();
            for (int i = 0; i < committed.size(); i++) {
                assertThat(committed.get(i)).isEqualTo(Long.toString(i + 1));
            }
        } finally {
            job.cancel();
            Assertions.assertThatThrownBy(job::await).isInstanceOf(CancellationException.class);
        }
    }

    record Context(String jobName, String sinkName, int subtaskIndex, int parallelism)
            implements dev.weir.api.sink.SinkContext {}

    @Test
    void aReusedCheckpointIdIsALoudErrorAndKeepsBothTransactions() throws Exception {
        Path output = temp.resolve("reused");
        FileSink<String> sink = FileSink.to(output);
        Context context = new Context("job", "out", 0, 1);
        var first = sink.createTransactionalWriter(context);
        first.write("first");
        var firstCommit = first.prepareCommit(5);
        first.commit(firstCommit);
        // A second transaction under the same checkpoint id, as after a lost checkpoint directory.
        var second = sink.createTransactionalWriter(context);
        second.write("second");
        var secondCommit = second.prepareCommit(5);

        Assertions.assertThatThrownBy(() -> second.commit(secondCommit))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("a checkpoint id was used twice");
        assertThat(FileSink.readCommitted(output)).containsExactly("first");
        try (Stream<Path> files = Files.list(output)) {
            assertThat(files.map(f -> f.getFileName().toString()))
                    .as("the second transaction's records are kept, pending")
                    .anyMatch(n -> n.startsWith(".pending-"));
        }
        first.close();
        second.close();
    }
}
