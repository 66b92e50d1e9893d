package dev.weir.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class CompareBenchTest {
    private static CompareBench.Row row(String job) {
        return new CompareBench()
                .rows().stream().filter(r -> r.job().equals(job)).findFirst().orElseThrow();
    }

    @Test
    void coldByDefaultOneRunPerJvm() {
        CompareBench compare = new CompareBench();
        List<String> args = compare.argsFor("keyed-sum", row("keyed-sum"));
        assertThat(args).first().isEqualTo("keyed-sum");
        assertThat(args).doesNotContain("--runs");
    }

    @Test
    void warmMeasuresTheSecondRunOfThroughputRowsOfBothEngines() {
        CompareBench compare = new CompareBench();
        compare.warm = true;
        for (String command : List.of("keyed-sum", "flink-keyed-sum")) {
            List<String> args = compare.argsFor(command, row("multi-stage"));
            assertThat(args.subList(args.size() - 2, args.size())).containsExactly("--runs", "2");
        }
        // A recovery row times one failure: it stays a single run.
        assertThat(compare.argsFor("keyed-sum", row("recovery"))).doesNotContain("--runs");
    }

    @Test
    void exactlyOnceKeyedRowsIntoTheDiscardingSinkAlsoRunTheJobByHand() {
        CompareBench compare = new CompareBench();
        List<CompareBench.Row> withFloor =
                compare.rows().stream().filter(r -> compare.floorArgs(r) != null).toList();
        assertThat(withFloor)
                .extracting(r -> r.job() + " " + r.mode() + " " + r.keys())
                .containsExactly("keyed-sum eo 2", "keyed-sum eo 100000", "multi-stage eo 100000");
        CompareBench.Row multi = row("multi-stage");
        assertThat(compare.floorArgs(multi))
                .startsWith("keyed-sum-floor")
                .containsSequence("--k", "100000")
                .containsSequence("--shape", "multi")
                .doesNotContain("--runs");
        compare.warm = true;
        List<String> warm = compare.floorArgs(multi);
        assertThat(warm.subList(warm.size() - 2, warm.size())).containsExactly("--runs", "2");
    }
}
