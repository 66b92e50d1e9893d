package dev.weir.bench;

import dev.weir.api.JobResult;
import dev.weir.api.Pipeline;
import dev.weir.api.codec.Codecs;
import dev.weir.api.sink.CountingSink;
import dev.weir.api.sink.Sinks;
import dev.weir.api.source.Sources;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The keyed running-sum job: 1..N, keyBy(n % K), running sum per key in {@code ValueState}, each
 * update into a discarding counting sink. Prints one result line per run and checks the count.
 */
@Command(name = "keyed-sum", description = "Runs the keyed running-sum job on Weir.")
public final class KeyedSumBench implements Callable<Integer> {
    @Option(names = "--n", description = "Records (default ${DEFAULT-VALUE}).")
    long n = 50_000_000L;

    @Option(names = "--k", description = "Distinct keys (default ${DEFAULT-VALUE}).")
    long k = 2;

    @Option(names = "--p", description = "Parallelism (default ${DEFAULT-VALUE}).")
    int p = 2;

    @Option(names = "--mode", description = "Checkpointing mode: none (default ${DEFAULT-VALUE}).")
    String mode = "none";

    @Option(names = "--runs", description = "Runs in this JVM (default ${DEFAULT-VALUE}).")
    int runs = 1;

    @Override
    public Integer call() throws Exception {
        if (!mode.equals("none")) {
            System.err.println("mode '" + mode + "' is not supported yet; use --mode none");
            return 2;
        }
        for (int run = 0; run < runs; run++) {
            runOnce();
        }
        return 0;
    }

    private void runOnce() throws InterruptedException {
        long keys = k;
        Pipeline pipeline = Pipeline.create("keyed-sum").parallelism(p);
        CountingSink<Long> sink = Sinks.counting();
        pipeline.source("numbers", Sources.sequence(1, n))
                .keyBy(value -> value % keys)
                .<Long, Long>process(
                        "sum",
                        Codecs.LONG,
                        (key, value, sum, out) -> {
                            Long current = sum.value();
                            long next = (current == null ? 0 : current) + value;
                            sum.update(next);
                            out.collect(next);
                        })
                .sink("count", sink);
        JobResult result = pipeline.run();
        if (sink.count() != n) {
            throw new IllegalStateException("expected " + n + " updates, sink saw " + sink.count());
        }
        double seconds = result.duration().toNanos() / 1e9;
        System.out.printf(
                Locale.ROOT,
                "engine=weir job=keyed-sum mode=%s N=%d K=%d P=%d seconds=%.3f records_per_s=%.0f%n",
                mode,
                n,
                k,
                p,
                seconds,
                n / seconds);
    }
}
