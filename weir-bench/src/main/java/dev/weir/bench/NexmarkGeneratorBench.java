package dev.weir.bench;

import dev.weir.bench.nexmark.Event;
import dev.weir.bench.nexmark.NexmarkConfig;
import dev.weir.bench.nexmark.NexmarkGenerator;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.LongAdder;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * The Nexmark generator alone, with no engine: {@code --p} threads each generate one stripe of the
 * event numbers, as the sources of both engines do, and only count the bids. Its events/s bound
 * what any engine reaches on a query, since both engines call this generator for every event; over
 * an engine's events/s it is the largest Weir/Flink ratio a query can show.
 */
@Command(
        name = "nexmark-generator",
        description = "Runs the Nexmark generator alone: the ceiling of every Nexmark query.")
public final class NexmarkGeneratorBench implements Callable<Integer> {
    @Mixin NexmarkOptions options;

    /** The last event of each stripe, so the JIT cannot drop the events it does not count. */
    static volatile Object lastEvent;

    @Override
    public Integer call() throws Exception {
        NexmarkConfig config = NexmarkConfig.defaults(options.n, options.seed);
        for (int run = 0; run < options.runs; run++) {
            RunResources resources = new RunResources();
            long start = System.nanoTime();
            long bids = generate(config, options.p);
            double seconds = (System.nanoTime() - start) / 1e9;
            System.out.println(
                    String.format(
                                    Locale.ROOT,
                                    "engine=generator job=nexmark-generator mode=- N=%d P=%d"
                                            + " seconds=%.3f records_per_s=%.0f outputs=%d",
                                    options.n,
                                    options.p,
                                    seconds,
                                    options.n / seconds,
                                    bids)
                            + resources.fields(options.n));
        }
        return 0;
    }

    /** Generates every event of {@code config} on {@code threads} threads; returns the bids. */
    static long generate(NexmarkConfig config, int threads) throws InterruptedException {
        LongAdder bids = new LongAdder();
        Thread[] stripes = new Thread[threads];
        for (int s = 0; s < threads; s++) {
            int stripe = s;
            stripes[s] =
                    new Thread(
                            () -> {
                                NexmarkGenerator generator = new NexmarkGenerator(config);
                                long count = 0;
                                Event last = null;
                                for (long i = stripe; i < config.events(); i += threads) {
                                    last = generator.event(i);
                                    if (last.bid() != null) {
                                        count++;
                                    }
                                }
                                lastEvent = last;
                                bids.add(count);
                            },
                            "nexmark-generator-" + s);
            stripes[s].start();
        }
        for (Thread stripe : stripes) {
            stripe.join();
        }
        return bids.sum();
    }
}
