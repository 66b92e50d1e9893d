package dev.weir.verify;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.verify.Checker.Verdict;
import dev.weir.verify.VerifyJob.Input;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The windowed workload's checker finds lost, duplicated and wrong windows. */
class WindowWorkloadTest {
    static final long N = 2_000;
    static final int KEYS = 10;
    static final long SEED = 3;

    /** The committed lines of a correct run whose records with seq divisible by 9 were late. */
    static List<String> correctOutput() {
        int[] order = VerifyJob.keyOrder(SEED, KEYS);
        Map<String, Long> counts = new TreeMap<>();
        List<String> lines = new ArrayList<>();
        for (long i = 1; i <= N; i++) {
            Input in = VerifyJob.input(i, order);
            if (in.seq() % 9 == 0) {
                lines.add("L," + in.key() + "," + in.seq());
            } else {
                long start =
                        WindowWorkload.windowStart(WindowWorkload.eventTime(in.key(), in.seq()));
                counts.merge(in.key() + "," + start, 1L, Long::sum);
            }
        }
        counts.forEach((window, count) -> lines.add("W," + window + "," + count));
        return lines;
    }

    static Verdict check(List<String> lines) {
        return WindowWorkload.check(lines, N, KEYS, SEED, List.of(), List.of());
    }

    @Test
    void aCorrectRunPasses() {
        Verdict verdict = check(correctOutput());
        assertThat(verdict.problems()).isEmpty();
        assertThat(verdict.ok()).isTrue();
    }

    @Test
    void aMissingWindowIsLostAndARepeatedWindowIsDuplicated() {
        List<String> lines = correctOutput();
        String window = lines.stream().filter(l -> l.startsWith("W,")).findFirst().orElseThrow();
        long count = Long.parseLong(window.substring(window.lastIndexOf(',') + 1));

        List<String> missing = new ArrayList<>(lines);
        missing.remove(window);
        assertThat(check(missing).lost()).isEqualTo(count);

        List<String> twice = new ArrayList<>(lines);
        twice.add(window);
        assertThat(check(twice).duplicated()).isEqualTo(1);
        assertThat(check(twice).problems()).anyMatch(p -> p.contains("committed twice"));
    }

    @Test
    void aLateRecordAlsoCountedInItsWindowIsWrong() {
        List<String> lines = correctOutput();
        String late = lines.stream().filter(l -> l.startsWith("L,")).findFirst().orElseThrow();
        List<String> extra = new ArrayList<>(lines);
        extra.add("L,0,999999");
        assertThat(check(extra).wrong()).isEqualTo(1);
        List<String> lateTwice = new ArrayList<>(lines);
        lateTwice.add(late);
        assertThat(check(lateTwice).duplicated()).isEqualTo(1);
        List<String> withoutLate = new ArrayList<>(lines);
        withoutLate.remove(late);
        assertThat(check(withoutLate).lost()).isEqualTo(1);
    }
}
