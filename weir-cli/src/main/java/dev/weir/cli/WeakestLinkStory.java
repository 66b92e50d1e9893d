package dev.weir.cli;

import dev.weir.api.JobListener;
import dev.weir.api.Pipeline;
import dev.weir.api.RestartStrategy;
import dev.weir.api.checkpoint.CheckpointConfig;
import dev.weir.api.checkpoint.CheckpointStats;
import dev.weir.api.codec.Codecs;
import dev.weir.api.log.DurableLog;
import dev.weir.api.log.LogOptions;
import dev.weir.api.sink.FileSink;
import dev.weir.api.sink.Sink;
import dev.weir.api.sink.Sinks;
import dev.weir.api.source.Source;
import dev.weir.api.source.Sources;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * The weakest-link story: the same job (numbers 1..N passed through, a crash after the first
 * checkpoint) run with three source/sink pairs. Each run counts, against 1..N, what the sink's
 * committed output lost and duplicated, and prints one line {@code SCENARIO source=… sink=…
 * guarantee=… lost=… duplicates=…}.
 */
final class WeakestLinkStory {
    static final int N = 2_000;

    /** What one scenario measured. */
    record Outcome(String source, String sink, String guarantee, int lost, int duplicates) {
        String line() {
            return "SCENARIO source="
                    + source
                    + " sink="
                    + sink
                    + " guarantee="
                    + guarantee
                    + " lost="
                    + lost
                    + " duplicates="
                    + duplicates;
        }
    }

    private WeakestLinkStory() {}

    static List<Outcome> run(Path dir, PrintStream out) throws Exception {
        Path log = dir.resolve("log");
        try (DurableLog durable = DurableLog.open(log, LogOptions.defaults())) {
            durable.createTopic("numbers", 1);
            List<byte[]> records = new ArrayList<>();
            for (long n = 1; n <= N; n++) {
                records.add(Codecs.LONG.toBytes(n));
            }
            durable.append("numbers", 0, records);
        }
        List<Outcome> outcomes = new ArrayList<>();
        Source<Long> fromLog = Sources.log(log, "numbers", Codecs.LONG);

        Path fileOut = dir.resolve("log-to-file");
        outcomes.add(
                scenario(
                        "log",
                        fromLog,
                        "file",
                        FileSink.to(fileOut),
                        dir.resolve("chk-1"),
                        out,
                        () -> FileSink.readCommitted(fileOut)));

        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        PrintStream console = new PrintStream(printed, true, StandardCharsets.UTF_8);
        outcomes.add(
                scenario(
                        "log",
                        fromLog,
                        "console",
                        Sinks.console("", console),
                        dir.resolve("chk-2"),
                        out,
                        () -> List.of(printed.toString(StandardCharsets.UTF_8).split("\n"))));

        try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            startLineServer(server);
            Path socketOut = dir.resolve("socket-to-file");
            outcomes.add(
                    scenario(
                            "socket",
                            Sources.socket("127.0.0.1", server.getLocalPort()),
                            "file",
                            FileSink.to(socketOut),
                            dir.resolve("chk-3"),
                            out,
                            () -> FileSink.readCommitted(socketOut)));
        }
        return outcomes;
    }

    interface Output {
        List<String> read() throws IOException;
    }

    private static <T> Outcome scenario(
            String sourceName,
            Source<T> source,
            String sinkName,
            Sink<Object> sink,
            Path checkpoints,
            PrintStream out,
            Output committed)
            throws Exception {
        AtomicBoolean checkpointed = new AtomicBoolean();
        AtomicInteger afterCheckpoint = new AtomicInteger();
        Pipeline pipeline =
                Pipeline.create(sourceName + "-to-" + sinkName)
                        .checkpointing(
                                CheckpointConfig.exactlyOnce(Duration.ofMillis(20), checkpoints))
                        .restartStrategy(RestartStrategy.fixedDelay(1, Duration.ZERO))
                        .listener(
                                new JobListener() {
                                    @Override
                                    public void onCheckpointComplete(CheckpointStats stats) {
                                        checkpointed.set(true);
                                    }
                                });
        pipeline.source("input", source)
                .map(
                        value -> {
                            // Slow enough that checkpoints happen while records flow.
                            LockSupport.parkNanos(100_000);
                            if (checkpointed.get() && afterCheckpoint.incrementAndGet() == 20) {
                                throw new IllegalStateException("injected crash");
                            }
                            return String.valueOf(value);
                        })
                .sink("out", sink);
        String verdict = pipeline.guarantee().describe();
        out.println(sourceName + " -> " + sinkName + ": " + verdict);
        pipeline.run();

        Map<String, Integer> counts = new HashMap<>();
        for (String line : committed.read()) {
            if (!line.isEmpty()) {
                counts.merge(line, 1, Integer::sum);
            }
        }
        int lost = 0;
        int duplicates = 0;
        for (int n = 1; n <= N; n++) {
            int seen = counts.getOrDefault(Integer.toString(n), 0);
            lost += seen == 0 ? 1 : 0;
            duplicates += Math.max(0, seen - 1);
        }
        Outcome outcome =
                new Outcome(
                        sourceName,
                        sinkName,
                        pipeline.guarantee().guarantee().name(),
                        lost,
                        duplicates);
        out.println(outcome.line());
        return outcome;
    }

    /** Serves 1..N, one per line, to whichever connection is open; a new one continues. */
    private static void startLineServer(ServerSocket server) {
        AtomicInteger next = new AtomicInteger(1);
        Thread thread =
                new Thread(
                        () -> {
                            while (next.get() <= N) {
                                try (Socket client = server.accept();
                                        OutputStream stream = client.getOutputStream()) {
                                    while (next.get() <= N) {
                                        stream.write(
                                                (next.getAndIncrement() + "\n")
                                                        .getBytes(StandardCharsets.UTF_8));
                                        stream.flush();
                                        LockSupport.parkNanos(50_000);
                                    }
                                } catch (IOException e) {
                                    // the job's connection dropped at its restart: serve the next
                                    // one
                                }
                            }
                        },
                        "demo-line-server");
        thread.setDaemon(true);
        thread.start();
    }
}
