package dev.weir.log;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.api.log.DurableLog;
import dev.weir.api.log.LogOptions;
import dev.weir.api.log.LogRecord;
import dev.weir.testing.LogWriterChild;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A writer process is killed with SIGKILL mid-append, several times; after each kill the reopened
 * log holds every acknowledged record intact, and never returns a corrupt one.
 */
class LogWriterCrashIT {
    @TempDir Path dir;

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {11, 12})
    void acknowledgedRecordsSurviveSigkillAndNoCorruptRecordIsReturned(long seed) throws Exception {
        Random random = new Random(seed);
        long acked = 0;
        for (int kill = 0; kill < 3; kill++) {
            Process child =
                    new ProcessBuilder(
                                    Path.of(System.getProperty("java.home"), "bin", "java")
                                            .toString(),
                                    "-Xmx128m",
                                    "-cp",
                                    System.getProperty("java.class.path"),
                                    LogWriterChild.class.getName(),
                                    dir.toString(),
                                    Integer.toString(1 + random.nextInt(500)))
                            .redirectErrorStream(true)
                            .start();
            BufferedReader out =
                    new BufferedReader(
                            new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
            long target = acked + 2_000 + random.nextInt(20_000);
            String line;
            while ((line = out.readLine()) != null) {
                if (line.startsWith("acked ")) {
                    acked = Long.parseLong(line.substring(6));
                    if (acked >= target) {
                        break;
                    }
                }
            }
            child.destroyForcibly().waitFor();

            try (DurableLog log = DurableLog.open(dir, LogOptions.defaults())) {
                long end = log.endOffset("t", 0);
                assertThat(end)
                        .as("every acknowledged record is there")
                        .isGreaterThanOrEqualTo(acked);
                List<LogRecord> all = log.read("t", 0, 0, Integer.MAX_VALUE);
                assertThat(all).hasSize((int) end);
                for (LogRecord record : all) {
                    assertThat(record.payload()).isEqualTo(LogWriterChild.payload(record.offset()));
                }
            }
        }
    }
}
