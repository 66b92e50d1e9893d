package dev.weir.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.api.sink.CollectSink;
import dev.weir.api.sink.Sinks;
import dev.weir.api.source.Sources;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * Random pipelines of map, filter, union, keyBy and reduce give the same per-key results as a plain
 * sequential computation of the same steps.
 */
class RandomPipelineProperties {
    /** One stateless step, applied identically by Weir and by the reference. */
    record Step(boolean isFilter, long a, long b) {
        long map(long x) {
            return Math.floorMod(a * x + b, 1_000_003L);
        }

        boolean keep(long x) {
            return Math.floorMod(x, a + 2) != b % (a + 2);
        }
    }

    record Keyed(long key, long sum) {}

    @Provide
    Arbitrary<List<Step>> steps() {
        Arbitrary<Step> step =
                Combinators.combine(
                                Arbitraries.of(true, false),
                                Arbitraries.longs().between(1, 50),
                                Arbitraries.longs().between(0, 50))
                        .as(Step::new);
        return step.list().ofMaxSize(4);
    }

    @Property(tries = 40)
    void randomPipelinesMatchTheSequentialReference(
            @ForAll @Size(max = 2000) List<@IntRange(min = -1000, max = 1000) Integer> left,
            @ForAll @Size(max = 500) List<@IntRange(min = 0, max = 1000) Integer> right,
            @ForAll("steps") List<Step> steps,
            @ForAll @IntRange(min = 1, max = 30) int keys,
            @ForAll @IntRange(min = 1, max = 4) int parallelism,
            @ForAll boolean useUnion)
            throws Exception {
        List<Long> leftInput = toLongs(left);
        List<Long> rightInput = toLongs(right);
        Pipeline pipeline = Pipeline.create("random").parallelism(parallelism).batchSize(7);
        DataStream<Long> stream = pipeline.source("left", Sources.collection(leftInput));
        if (useUnion) {
            DataStream<Long> other =
                    pipeline.source("right", Sources.collection(rightInput)).map(x -> x * 3);
            stream = stream.union(other);
        }
        for (Step step : steps) {
            stream = step.isFilter() ? stream.filter(step::keep) : stream.map(step::map);
        }
        CollectSink<Keyed> sink = Sinks.collect();
        long k = keys;
        stream.map(x -> new Keyed(Math.floorMod(x, k), x))
                .keyBy(Keyed::key)
                .reduce("sum", (a, b) -> new Keyed(a.key(), a.sum() + b.sum()))
                .sink("out", sink);

        pipeline.run();

        List<Long> reference = new ArrayList<>(leftInput);
        if (useUnion) {
            rightInput.forEach(x -> reference.add(x * 3));
        }
        Map<Long, Long> expected = new HashMap<>();
        long expectedUpdates = 0;
        for (long x : reference) {
            boolean kept = true;
            for (Step step : steps) {
                if (step.isFilter()) {
                    if (!step.keep(x)) {
                        kept = false;
                        break;
                    }
                } else {
                    x = step.map(x);
                }
            }
            if (kept) {
                expected.merge(Math.floorMod(x, k), x, Long::sum);
                expectedUpdates++;
            }
        }
        Map<Long, Long> actual = new HashMap<>();
        for (Keyed update : sink.results()) {
            actual.put(update.key(), update.sum());
        }
        assertThat(actual).isEqualTo(expected);
        assertThat(sink.results()).hasSize((int) expectedUpdates);
    }

    private static List<Long> toLongs(List<Integer> values) {
        List<Long> longs = new ArrayList<>(values.size());
        values.forEach(v -> longs.add((long) v));
        return longs;
    }
}
