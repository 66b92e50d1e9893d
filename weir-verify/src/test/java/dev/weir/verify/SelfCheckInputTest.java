package dev.weir.verify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * An input too small for the self-check to mean anything (its seeded bugs' kills would land on
 * checkpoints that commit nothing) is refused up front when the self-check is on, and warned about
 * when it is off.
 */
class SelfCheckInputTest {
    static Verifier.Options options(
            String workload, long records, long rate, List<String> seededBugs) {
        return new Verifier.Options(
                "log",
                "file",
                3,
                1,
                records,
                100,
                rate,
                Path.of("unused"),
                null,
                seededBugs,
                null,
                workload);
    }

    static List<String> allBugs() {
        return Verifier.seededBugNames("log", "file");
    }

    @Test
    void tooFewRecordsForTheWindowsSelfCheckAreRefusedNamingTheMinimumAndWhy() {
        assertThatThrownBy(() -> options("windows", 10, 40_000, allBugs()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(
                        "--records must be at least 5000 for the self-check of the windows"
                                + " workload, not 10: ")
                .hasMessageContaining("transactions hold output")
                .hasMessageEndingWith("or skip the self-check with --no-self-check");
        assertThatThrownBy(() -> options("windows", 4_999, 40_000, List.of("skip-abort")))
                .hasMessageStartingWith("--records must be at least 5000");
        assertThat(options("windows", 5_000, 40_000, allBugs()).records()).isEqualTo(5_000);
    }

    @Test
    void tooFewRecordsForTheCountSelfCheckAreRefusedToo() {
        assertThatThrownBy(() -> options("count", 10, 40_000, allBugs()))
                .hasMessageStartingWith(
                        "--records must be at least 500 for the self-check of the count"
                                + " workload, not 10: ");
        assertThat(options("count", 500, 40_000, allBugs()).records()).isEqualTo(500);
    }

    @Test
    void aPaceTooSlowForTheSelfCheckIsRefused() {
        // A seeded bug's round reads min(rate, records / 2) records per second.
        assertThatThrownBy(() -> options("windows", 50_000, 2_499, allBugs()))
                .hasMessageStartingWith(
                        "--rate must be at least 2500 for the self-check of the windows"
                                + " workload, not 2499: ");
        assertThat(options("windows", 50_000, 2_500, allBugs()).rate()).isEqualTo(2_500);
    }

    @Test
    void withoutTheSelfCheckASmallInputRunsWithAWarning() {
        Verifier.Options small = options("windows", 10, 40_000, List.of());
        assertThat(Verifier.smallInputWarning(small))
                .startsWith("warning: no self-check, and this input is too small for one")
                .contains("--records must be at least 5000");
        assertThat(Verifier.smallInputWarning(options("count", 10, 40_000, List.of())))
                .contains("--records must be at least 500");
        assertThat(Verifier.smallInputWarning(options("windows", 5_000, 40_000, List.of())))
                .isNull();
        assertThat(Verifier.smallInputWarning(options("windows", 5_000, 40_000, allBugs())))
                .isNull();
    }
}
