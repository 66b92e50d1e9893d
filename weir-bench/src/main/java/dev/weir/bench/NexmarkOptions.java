package dev.weir.bench;

import dev.weir.bench.nexmark.NexmarkConfig;
import dev.weir.bench.nexmark.WeirQueries;
import java.util.Locale;
import picocli.CommandLine.Option;

/** The options both engines' Nexmark commands take, so {@code compare} hands either the same. */
final class NexmarkOptions {
    @Option(
            names = "--query",
            description = "q0, q1, q2, q3, q4, q5, q7, q8 or q11 (default ${DEFAULT-VALUE}).")
    String query = "q0";

    @Option(names = "--n", description = "Events generated (default ${DEFAULT-VALUE}).")
    long n = 10_000_000L;

    @Option(names = "--p", description = "Parallelism (default ${DEFAULT-VALUE}).")
    int p = 2;

    @Option(names = "--seed", description = "Seed of the events (default ${DEFAULT-VALUE}).")
    long seed = 42;

    @Option(
            names = "--interval-ms",
            description = "Exactly-once checkpoint interval (default ${DEFAULT-VALUE}).")
    long intervalMs = 1000;

    @Option(names = "--runs", description = "Runs in this JVM (default ${DEFAULT-VALUE}).")
    int runs = 1;

    /** The generator's configuration: the Nexmark defaults for {@code --n} events. */
    NexmarkConfig config() {
        if (!WeirQueries.QUERIES.contains(query)) {
            throw WeirQueries.unknown(query);
        }
        return NexmarkConfig.defaults(n, seed);
    }

    /**
     * The start of a run's result line, which {@code compare} parses: {@code engine=<engine>
     * job=nexmark-<query> mode=eo N=… P=… seconds=… records_per_s=… outputs=…}; records/s counts
     * input events.
     */
    String resultLine(String engine, double seconds, long outputs) {
        return String.format(
                Locale.ROOT,
                "engine=%s job=nexmark-%s mode=eo N=%d P=%d seconds=%.3f records_per_s=%.0f"
                        + " outputs=%d",
                engine,
                query,
                n,
                p,
                seconds,
                n / seconds,
                outputs);
    }
}
