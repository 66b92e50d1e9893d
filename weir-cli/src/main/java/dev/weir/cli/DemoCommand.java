package dev.weir.cli;

import dev.weir.api.Pipeline;
import dev.weir.api.codec.Codecs;
import dev.weir.api.sink.CollectSink;
import dev.weir.api.sink.Sinks;
import dev.weir.api.source.Sources;
import java.io.PrintStream;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code weir demo}: the lecture's job. The numbers 1..N are summed into an even and an odd sum,
 * keyed by parity, in keyed state.
 */
@Command(name = "demo", description = "Runs the even/odd sum job on 1..10 and prints the result.")
public final class DemoCommand implements Callable<Integer> {
    @Option(names = "--to", description = "Last number of the input (default ${DEFAULT-VALUE}).")
    long to = 10;

    /** One update of a parity's running sum. */
    public record ParitySum(String parity, long sum) {}

    @Override
    public Integer call() throws Exception {
        PrintStream out = System.out;
        Map<String, Long> result = run(to, out);
        out.println("RESULT even=" + result.get("even") + " odd=" + result.get("odd"));
        return 0;
    }

    /** Runs the job on 1..{@code to} and returns the final sum per parity. */
    static Map<String, Long> run(long to, PrintStream out) throws InterruptedException {
        Pipeline pipeline = Pipeline.create("even-odd");
        CollectSink<ParitySum> sums = Sinks.collect();
        pipeline.source("numbers", Sources.sequence(1, to))
                .keyBy(n -> n % 2 == 0 ? "even" : "odd")
                .<Long, ParitySum>process(
                        "sum",
                        Codecs.LONG,
                        (parity, n, sum, collector) -> {
                            long next = (sum.value() == null ? 0 : sum.value()) + n;
                            sum.update(next);
                            collector.collect(new ParitySum(parity, next));
                        })
                .sink("sums", sums);
        out.println("running: numbers 1.." + to + " -> keyBy(parity) -> sum in ValueState");
        pipeline.run();
        Map<String, Long> latest = new TreeMap<>(Map.of("even", 0L, "odd", 0L));
        List<ParitySum> updates = sums.results();
        for (ParitySum update : updates) {
            latest.put(update.parity(), update.sum());
        }
        return latest;
    }
}
