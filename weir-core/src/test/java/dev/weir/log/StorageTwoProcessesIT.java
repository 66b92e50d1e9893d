package dev.weir.log;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.api.Pipeline;
import dev.weir.api.codec.Codecs;
import dev.weir.api.log.DurableLog;
import dev.weir.api.log.LogOptions;
import dev.weir.api.log.LogRecord;
import dev.weir.api.sink.CollectSink;
import dev.weir.api.sink.Sinks;
import dev.weir.api.source.Sources;
import dev.weir.testing.LogNumbersChild;
import dev.weir.testing.LogWriterChild;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two processes on one log directory (issue 12, item 1): a second writer is refused, naming the
 * directory and the first one's PID, and the first one's acknowledged records are all there; a
 * reader in another process sees every record the writer acknowledged, while it writes.
 */
class StorageTwoProcessesIT {
    @TempDir Path dir;
    final List<Process> children = new ArrayList<>();

    @AfterEach
    void killChildren() throws InterruptedException {
        for (Process child : children) {
            child.destroyForcibly().waitFor();
        }
    }

    Process start(Class<?> main, String... args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx128m");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(main.getName());
        command.addAll(List.of(args));
        Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
        children.add(child);
        return child;
    }

    static BufferedReader output(Process child) {
        return new BufferedReader(
                new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
    }

    /** Reads "acked N" lines until N reaches {@code target}; returns N. */
    static long awaitAcked(BufferedReader out, long target) throws IOException {
        String line;
        while ((line = out.readLine()) != null) {
            if (line.startsWith("acked ")) {
                long acked = Long.parseLong(line.substring(6));
                if (acked >= target) {
                    return acked;
                }
            }
        }
        throw new AssertionError("the writer ended before acknowledging " + target);
    }

    @Test
    void aSecondWriterProcessIsRefusedNamingTheDirectoryAndTheHoldersPid() throws Exception {
        Process first = start(LogWriterChild.class, dir.toString(), "100");
        BufferedReader firstOut = output(first);
        long acked = awaitAcked(firstOut, 2_000);

        Process second = start(LogWriterChild.class, dir.toString(), "100");
        StringBuilder secondOut = new StringBuilder();
        try (BufferedReader out = output(second)) {
            String line;
            while ((line = out.readLine()) != null) {
                assertThat(line).as("the second writer appended").doesNotStartWith("acked ");
                secondOut.append(line).append('\n');
            }
        }
        assertThat(second.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(second.exitValue()).isNotZero();
        assertThat(secondOut.toString())
                .contains("durable log " + dir)
                .contains("in use by another process (pid " + first.pid() + ")");

        acked = awaitAcked(firstOut, acked + 1_000);
        first.destroyForcibly().waitFor();
        try (DurableLog log = DurableLog.open(dir, LogOptions.defaults())) {
            long end = log.endOffset("t", 0);
            assertThat(end).isGreaterThanOrEqualTo(acked);
            List<LogRecord> all = log.read("t", 0, 0, Integer.MAX_VALUE);
            assertThat(all).hasSize((int) end);
            for (LogRecord record : all) {
                assertThat(record.payload()).isEqualTo(LogWriterChild.payload(record.offset()));
            }
        }
    }

    @Test
    void aReaderInAnotherProcessSeesEveryAcknowledgedRecordWhileTheWriterRuns() throws Exception {
        Process writer = start(LogNumbersChild.class, dir.toString());
        BufferedReader out = output(writer);
        long acked = awaitAcked(out, 1_000);
        try (DurableLog log = DurableLog.openReadOnly(dir, LogOptions.defaults())) {
            long read = 0;
            for (int round = 0; round < 6; round++) {
                acked = awaitAcked(out, acked + 3_000); // crosses several 64 KiB segments
                long end = log.endOffset("n", 0);
                assertThat(end).as("the view follows the writer").isGreaterThanOrEqualTo(acked);
                for (LogRecord record : log.read("n", 0, read, (int) (end - read))) {
                    assertThat(Codecs.LONG.fromBytes(record.payload())).isEqualTo(read);
                    read++;
                }
                assertThat(read).isEqualTo(end);
            }
        }

        // a job in this process reads the topic the other process is writing
        acked = awaitAcked(out, acked + 1_000);
        Pipeline job = Pipeline.create("reads-another-process");
        CollectSink<Long> sink = Sinks.collect();
        job.source("n", Sources.log(dir, "n", Codecs.LONG)).sink("collect", sink);
        job.run();
        List<Long> seen = sink.results();
        assertThat((long) seen.size()).isGreaterThanOrEqualTo(acked);
        for (int i = 0; i < seen.size(); i++) {
            assertThat(seen.get(i)).isEqualTo(i);
        }
    }
}
