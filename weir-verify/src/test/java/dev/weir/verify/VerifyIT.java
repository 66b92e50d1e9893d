package dev.weir.verify;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The short {@code weir verify} run of the test suite: every fault point once plus random kills and
 * power cuts, for the file and log sinks, and the self-check with the five seeded bugs, each of
 * which the checker must catch.
 */
class VerifyIT {
    @TempDir Path dir;

    @ParameterizedTest(name = "sink {0}")
    @CsvSource({"file, 20, true", "log, 18, false"})
    void everyKillLeavesTheCommittedOutputExactlyOnceAndEverySeededBugIsCaught(
            String sink, int kills, boolean selfCheck) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        Verifier.Report report =
                new Verifier(
                                new Verifier.Options(
                                        sink, kills, 7, 12_000, 50, 20_000, dir, null, selfCheck),
                                out)
                        .run();
        String log = bytes.toString(StandardCharsets.UTF_8);

        assertThat(report.findings().problems()).as(log).isEmpty();
        assertThat(report.passed()).as(log).isTrue();
        // Random kills that come after a run has finished do not happen; fault points do.
        assertThat(report.kills())
                .as("kills that happened")
                .isGreaterThanOrEqualTo(report.faultPoints());
        assertThat(report.faultPoints())
                .as("distinct fault points that fired")
                .isGreaterThanOrEqualTo(Verifier.FAULT_POINTS.size() - 2);
        assertThat(report.powerCuts()).isPositive();
        if (selfCheck) {
            assertThat(report.bugsCaught()).isEqualTo(Verifier.SEEDED_BUGS.size()).isEqualTo(5);
        }
        assertThat(log.strip().lines().reduce((a, b) -> b).orElseThrow())
                .startsWith("verify: sink=" + sink + " kills=")
                .contains(" lost=0 duplicated=0 reordered=0 dangling=0 ")
                .endsWith(" seed=7");
    }
}
