package dev.weir.source;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.api.Guarantee;
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
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A socket cannot rewind: what the server sent before a failure and the job had not yet
 * checkpointed is gone, so a restart loses records, and Weir warns at start.
 */
class SocketSourceTest {
    /** Lines the server sends on the connection the restarted job opens, then it closes. */
    static final int TAIL = 1_000;

    @TempDir Path dir;

    /**
     * Sends 0, 1, 2, ... one per line. On the first connection it keeps sending until the job drops
     * it (the job fails, so whatever is in flight is gone); on the second it sends {@link #TAIL}
     * more lines and closes, which ends the job. The order of events does not depend on timing, so
     * a slow machine cannot leave the restarted job waiting on a server that is done.
     */
    static Thread server(ServerSocket socket, AtomicLong sent) {
        Thread thread =
                new Thread(
                        () -> {
                            try (Socket first = socket.accept();
                                    OutputStream out = first.getOutputStream()) {
                                while (true) {
                                    out.write(line(sent.getAndIncrement()));
                                    if (sent.get() % 100 == 0) {
                                        out.flush();
                                    }
                                }
                            } catch (IOException e) {
                                // The job dropped the connection when it failed.
                            }
                            try (Socket second = socket.accept();
                                    OutputStream out = second.getOutputStream()) {
                                for (int i = 0; i < TAIL; i++) {
                                    out.write(line(sent.getAndIncrement()));
                                }
                            } catch (IOException e) {
                                throw new UncheckedIOException(e);
                            }
                        },
                        "test-socket-server");
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    static byte[] line(long n) {
        return (n + "\n").getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void recordsInFlightAreLostAcrossARestartAndTheWarningSaysWhy() throws Exception {
        record Count(String key, long count) {}
        try (ServerSocket socket =
                new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
            AtomicLong sent = new AtomicLong();
            Thread server = server(socket, sent);
            AtomicBoolean checkpointed = new AtomicBoolean();
            AtomicBoolean failed = new AtomicBoolean();
            Pipeline pipeline =
                    Pipeline.create("socket")
                            .checkpointing(CheckpointConfig.exactlyOnce(Duration.ofMillis(5), dir))
                            .restartStrategy(RestartStrategy.fixedDelay(1, Duration.ZERO))
                            .listener(
                                    new JobListener() {
                                        @Override
                                        public void onCheckpointComplete(CheckpointStats stats) {
                                            checkpointed.set(true);
                                        }
                                    });
            CollectSink<Count> sink = Sinks.collect();
            pipeline.source("lines", Sources.socket("127.0.0.1", socket.getLocalPort()))
                    .keyBy(line -> "all")
                    .<Long, Count>process(
                            "count",
                            Codecs.LONG,
                            (key, line, state, out) -> {
                                if (checkpointed.get() && failed.compareAndSet(false, true)) {
                                    throw new IllegalStateException("injected");
                                }
                                long next2 = (state.value() == null ? 0 : state.value()) + 1;
                                state.update(next2);
                                out.collect(new Count(key, next2));
                            })
                    .sink("out", sink);

            assertThat(pipeline.warnings())
                    .singleElement()
                    .asString()
                    .contains("source 'lines' (socket) cannot replay")
                    .contains("at-most-once end to end")
                    .contains("use a replayable source");
            assertThat(Sources.socket("h", 1).guarantee()).isEqualTo(Guarantee.AT_MOST_ONCE);

            pipeline.run();
            server.join();

            assertThat(failed).isTrue();
            Map<String, Long> counts = new HashMap<>();
            for (Count count : sink.results()) {
                counts.merge(count.key(), count.count(), Math::max);
            }
            assertThat(counts.get("all"))
                    .as("records counted, of %d sent", sent.get())
                    .isGreaterThanOrEqualTo(TAIL)
                    .isLessThan(sent.get());
        }
    }
}
