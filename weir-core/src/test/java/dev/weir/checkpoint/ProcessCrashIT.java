package dev.weir.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.testing.ChildJvm;
import dev.weir.testing.CrashChild;
import dev.weir.testing.KeyedCountJob;
import dev.weir.testing.KeyedCountJob.Update;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Real crashes: the job runs in a child JVM that is killed with SIGKILL (at seeded random times, or
 * by itself at a named fault point), then started again on the same checkpoint directory until it
 * finishes. The state it reached must equal a failure-free run's.
 */
class ProcessCrashIT {
    static final long N = 40_000;
    static final long KEYS = 10;
    static final long RATE = 25_000;

    @TempDir Path dir;

    Process startChild(Path checkpoints, Path output, String fault) throws IOException {
        return ChildJvm.start(
                CrashChild.class,
                fault,
                dir.resolve("child.log").toFile(),
                checkpoints.toString(),
                output.toString(),
                Long.toString(N),
                Long.toString(KEYS),
                Long.toString(RATE));
    }

    List<Update> readOutput(Path output) throws IOException {
        List<Update> updates = new ArrayList<>();
        try (Stream<Path> files = Files.list(output)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                String text = Files.readString(file, StandardCharsets.UTF_8);
                int end = text.lastIndexOf('\n');
                if (end < 0) {
                    continue;
                }
                for (String line : text.substring(0, end).split("\n")) {
                    Update update = Update.parse(line);
                    assertThat(update).as("line '%s' of %s", line, file).isNotNull();
                    updates.add(update);
                }
            }
        }
        return updates;
    }

    void runToCompletion(Path checkpoints, Path output) throws Exception {
        Process last = startChild(checkpoints, output, null);
        assertThat(last.waitFor(120, TimeUnit.SECONDS)).as("final run finishes").isTrue();
        assertThat(last.exitValue()).as(Files.readString(dir.resolve("child.log"))).isZero();
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3})
    void sigkillAtRandomTimesThenResumeEqualsAFailureFreeRun(long seed) throws Exception {
        Random random = new Random(seed);
        Path checkpoints = Files.createDirectories(dir.resolve("checkpoints"));
        Path output = Files.createDirectories(dir.resolve("output"));
        int kills = 0;
        for (int attempt = 0; attempt < 4; attempt++) {
            Process child = startChild(checkpoints, output, null);
            long waitMs = 300 + random.nextInt(900);
            if (!child.waitFor(waitMs, TimeUnit.MILLISECONDS)) {
                child.destroyForcibly().waitFor();
                kills++;
            }
        }
        runToCompletion(checkpoints, output);

        assertThat(kills).as("children killed mid-run (seed %d)", seed).isPositive();
        KeyedCountJob.Verdict verdict = KeyedCountJob.check(readOutput(output), N, KEYS);
        assertThat(verdict.problems()).as("seed %d", seed).isEmpty();
        try (Stream<Path> ids = Files.list(checkpoints)) {
            assertThat(ids.filter(p -> !p.getFileName().toString().equals("_instance-id")).count())
                    .as("retained checkpoints")
                    .isLessThanOrEqualTo(4);
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(
            strings = {
                "source.after-poll:40",
                "barrier.aligned:5",
                "snapshot.before-write:7",
                "checkpoint.all-acknowledged:3",
                "checkpoint.manifest-written:3"
            })
    void sigkillAtANamedFaultPointThenResumeEqualsAFailureFreeRun(String fault) throws Exception {
        Path checkpoints = Files.createDirectories(dir.resolve("checkpoints"));
        Path output = Files.createDirectories(dir.resolve("output"));
        Process child = startChild(checkpoints, output, fault);
        assertThat(child.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(child.exitValue()).as("killed at %s", fault).isEqualTo(137);
        assertThat(Files.readString(dir.resolve("child.log")))
                .contains("fault point '" + fault.split(":")[0]);

        runToCompletion(checkpoints, output);

        KeyedCountJob.Verdict verdict = KeyedCountJob.check(readOutput(output), N, KEYS);
        assertThat(verdict.problems()).as(fault).isEmpty();
    }
}
