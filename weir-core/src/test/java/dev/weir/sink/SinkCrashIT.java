package dev.weir.sink;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.api.sink.FileSink;
import dev.weir.testing.ChildJvm;
import dev.weir.testing.SinkCrashChild;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The sink conformance points, by SIGKILL of a child JVM: the child kills itself at a named point,
 * a second run on the same directories finishes the job; the committed output is exactly the input
 * and no pending or in-progress file is left.
 */
class SinkCrashIT {
    static final int N = ExactlyOnceSinkConformance.N;
    @TempDir Path dir;

    int runChild(String fault) throws IOException, InterruptedException {
        return runChild(fault, "file");
    }

    int runChild(String fault, String kind) throws IOException, InterruptedException {
        Process child =
                ChildJvm.start(
                        SinkCrashChild.class,
                        fault,
                        dir.resolve("child.log").toFile(),
                        dir.resolve("chk").toString(),
                        dir.resolve("out").toString(),
                        Integer.toString(N),
                        kind);
        assertThat(child.waitFor(120, TimeUnit.SECONDS)).isTrue();
        return child.exitValue();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(
            strings = {
                "sink.before-precommit:4",
                "sink.after-precommit:4",
                "checkpoint.manifest-written:2",
                "sink.checkpoint-complete-before-commit:4",
                "sink.after-commit:3",
            })
    void sigkillAtASinkPointThenResumeCommitsEveryRecordOnce(String fault) throws Exception {
        assertThat(runChild(fault)).as("killed at %s", fault).isEqualTo(137);
        assertThat(runChild(null)).as(Files.readString(dir.resolve("child.log"))).isZero();

        ExactlyOnceSinkConformance.assertExactlyOnce(FileSink.readCommitted(dir.resolve("out")));
        try (Stream<Path> files = Files.list(dir.resolve("out"))) {
            assertThat(files.map(p -> p.getFileName().toString()))
                    .as("lingering transactions of the killed run were aborted")
                    .noneMatch(n -> n.startsWith("."));
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"sink.recommit:1", "sink.before-recover:1"})
    void sigkillDuringRecoveryThenResumeCommitsEveryRecordOnce(String fault) throws Exception {
        assertThat(runChild("sink.checkpoint-complete-before-commit:4")).isEqualTo(137);
        assertThat(runChild(fault)).as("killed again during recovery at %s", fault).isEqualTo(137);
        assertThat(runChild(null)).isZero();

        ExactlyOnceSinkConformance.assertExactlyOnce(FileSink.readCommitted(dir.resolve("out")));
    }

    @ParameterizedTest(name = "write-ahead sink, {0}")
    @ValueSource(
            strings = {
                "sink.before-precommit:4",
                "sink.checkpoint-complete-before-commit:4",
                "sink.after-commit:3"
            })
    void aWriteAheadSinkKilledAtASinkPointSendsEveryRecordOnce(String fault) throws Exception {
        assertThat(runChild(fault, "write-ahead")).as("killed at %s", fault).isEqualTo(137);
        assertThat(runChild(null, "write-ahead"))
                .as(Files.readString(dir.resolve("child.log")))
                .isZero();

        ExactlyOnceSinkConformance.assertExactlyOnce(
                new WriteAheadSinkConformanceTest().readCommitted(dir.resolve("out")));
    }
}
