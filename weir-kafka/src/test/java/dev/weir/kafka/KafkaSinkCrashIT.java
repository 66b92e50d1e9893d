package dev.weir.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.testing.ChildJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * SIGKILL of the Weir process at the sink's fault points, Kafka to Kafka: a child JVM kills itself
 * at a named point, the next run on the same checkpoint directory finishes the job, and a
 * read_committed consumer of the output sees every input record exactly once, with no transaction
 * of the job left open.
 */
class KafkaSinkCrashIT {
    static final int N = 6_000;
    @TempDir Path dir;
    String input;
    String output;

    @BeforeEach
    void topics() {
        input = TestKafka.newTopic("crash-in", 4);
        output = TestKafka.newTopic("crash-out", 2);
        List<List<String>> parts = new ArrayList<>();
        for (int p = 0; p < 4; p++) {
            parts.add(new ArrayList<>());
        }
        for (int i = 1; i <= N; i++) {
            parts.get(i % 4).add(Integer.toString(i));
        }
        for (int p = 0; p < 4; p++) {
            TestKafka.produce(input, p, parts.get(p));
        }
    }

    int runChild(String fault) throws Exception {
        Process child =
                ChildJvm.start(
                        KafkaCrashChild.class,
                        fault,
                        dir.resolve("child.log").toFile(),
                        TestKafka.bootstrap(),
                        input,
                        output,
                        dir.resolve("chk").toString());
        assertThat(child.waitFor(120, TimeUnit.SECONDS)).isTrue();
        return child.exitValue();
    }

    void assertEveryRecordOnceAndNothingOpen() throws Exception {
        List<String> committed = TestKafka.readCommitted(output);
        assertThat(committed)
                .as(Files.readString(dir.resolve("child.log")))
                .doesNotHaveDuplicates()
                .hasSize(N);
        try (KafkaTransactions cluster =
                KafkaTransactions.connect(TestKafka.bootstrap(), Map.of())) {
            assertThat(cluster.open(output)).as("lingering transactions").isEmpty();
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(
            strings = {
                "sink.before-precommit:5",
                "sink.after-precommit:5",
                "sink.checkpoint-complete-before-commit:5",
                "sink.after-commit:4",
            })
    void sigkillAtASinkPointThenResumeCommitsEveryRecordOnce(String fault) throws Exception {
        assertThat(runChild(fault)).as("killed at %s", fault).isEqualTo(137);
        assertThat(runChild(null)).as(Files.readString(dir.resolve("child.log"))).isZero();
        assertEveryRecordOnceAndNothingOpen();
    }

    /**
     * The first kill must leave a prepared transaction in a complete checkpoint, or the restart has
     * nothing to commit again and never reaches {@code sink.recommit}. Early checkpoints can be
     * empty (the source's consumer is still starting), so a restart that ran to the end without
     * reaching the point is checked like any other and the whole scenario runs again on new topics,
     * killed at a later checkpoint; one of three must land.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"sink.recommit:1", "sink.before-recover:1"})
    void sigkillDuringRecoveryThenResumeCommitsEveryRecordOnce(String fault) throws Exception {
        boolean landed = false;
        for (int attempt = 0; attempt < 3 && !landed; attempt++) {
            if (attempt > 0) {
                topics();
                dir = Files.createTempDirectory(dir, "attempt-" + attempt);
            }
            int first = 5 + 6 * attempt;
            assertThat(runChild("sink.checkpoint-complete-before-commit:" + first)).isEqualTo(137);
            int second = runChild(fault);
            landed = second == 137;
            if (!landed) {
                assertThat(second).as(Files.readString(dir.resolve("child.log"))).isZero();
                assertEveryRecordOnceAndNothingOpen();
                continue;
            }
            assertThat(runChild(null)).as(Files.readString(dir.resolve("child.log"))).isZero();
            assertEveryRecordOnceAndNothingOpen();
        }
        assertThat(landed)
                .as("killed again during recovery at %s in one of 3 runs", fault)
                .isTrue();
    }
}
