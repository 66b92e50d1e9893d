package dev.weir.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.api.codec.Codecs;
import dev.weir.api.sink.CollectSink;
import dev.weir.api.sink.Sinks;
import dev.weir.api.source.Sources;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class EvenOddPipelineTest {
    record Sum(String key, long sum) {}

    static Map<String, Long> finalSums(List<Sum> updates) {
        Map<String, Long> latest = new HashMap<>();
        for (Sum update : updates) {
            latest.put(update.key(), update.sum());
        }
        return latest;
    }

    @ParameterizedTest(name = "parallelism {0}")
    @ValueSource(ints = {1, 2, 3, 4})
    void numbersOneToTenSumToEvenThirtyOddTwentyFive(int parallelism) throws Exception {
        Pipeline pipeline = Pipeline.create("even-odd").parallelism(parallelism);
        CollectSink<Sum> sink = Sinks.collect();
        pipeline.source("numbers", Sources.sequence(1, 10))
                .keyBy(n -> n % 2 == 0 ? "even" : "odd")
                .<Long, Sum>process(
                        "sum",
                        Codecs.LONG,
                        (key, n, sum, out) -> {
                            long next = (sum.value() == null ? 0 : sum.value()) + n;
                            sum.update(next);
                            out.collect(new Sum(key, next));
                        })
                .sink("out", sink);

        pipeline.run();

        assertThat(finalSums(sink.results()))
                .containsOnly(Map.entry("even", 30L), Map.entry("odd", 25L));
        assertThat(sink.results()).hasSize(10);
    }

    @ParameterizedTest(name = "parallelism {0}")
    @ValueSource(ints = {1, 2, 3, 4})
    void manyKeysEachSeeTheirOwnRunningSum(int parallelism) throws Exception {
        long n = 200_000;
        int keys = 1_000;
        Pipeline pipeline = Pipeline.create("many-keys").parallelism(parallelism);
        CollectSink<Sum> sink = Sinks.collect();
        pipeline.source("numbers", Sources.sequence(1, n))
                .map(v -> new Sum("k" + (v % keys), v))
                .keyBy(Sum::key)
                .reduce("sum", (a, b) -> new Sum(a.key(), a.sum() + b.sum()))
                .sink("out", sink);

        pipeline.run();

        Map<String, Long> expected = new HashMap<>();
        for (long v = 1; v <= n; v++) {
            expected.merge("k" + (v % keys), v, Long::sum);
        }
        assertThat(finalSums(sink.results())).isEqualTo(expected);
        assertThat(sink.results()).hasSize((int) n);
    }
}
