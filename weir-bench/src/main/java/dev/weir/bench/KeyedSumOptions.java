package dev.weir.bench;

import java.util.Locale;
import picocli.CommandLine.Option;

/**
 * The options of the keyed running-sum job that both engines' commands take, so {@code compare}
 * hands either the same arguments.
 */
final class KeyedSumOptions {
    @Option(names = "--n", description = "Records (default ${DEFAULT-VALUE}).")
    long n = 50_000_000L;

    @Option(names = "--k", description = "Distinct keys (default ${DEFAULT-VALUE}).")
    long k = 2;

    @Option(names = "--p", description = "Parallelism (default ${DEFAULT-VALUE}).")
    int p = 2;

    @Option(
            names = "--mode",
            description =
                    "Checkpointing: none, alo (at-least-once) or eo (exactly-once) (default"
                            + " ${DEFAULT-VALUE}).")
    String mode = "none";

    @Option(
            names = "--interval-ms",
            description = "Checkpoint interval (default ${DEFAULT-VALUE}).")
    long intervalMs = 1000;

    @Option(
            names = "--fail-at",
            description =
                    "Throw once when this record is processed and report the recovery time"
                            + " (needs --mode alo or eo; 0 = never).")
    long failAt = 0;

    @Option(
            names = "--sink",
            description =
                    "discard (count only) or file (every update through the engine's exactly-once"
                            + " file sink) (default ${DEFAULT-VALUE}).")
    String sinkKind = "discard";

    @Option(names = "--runs", description = "Runs in this JVM (default ${DEFAULT-VALUE}).")
    int runs = 1;

    @Option(
            names = "--shape",
            description =
                    "sum: source -> keyBy(n %% K) -> running sum in ValueState -> sink; multi:"
                            + " source -> map(n * 3) -> filter(not a multiple of 5) -> keyBy(n %% K)"
                            + " -> running sum in ValueState -> keyBy(sum %% K) -> reduce(+) -> sink"
                            + " (default ${DEFAULT-VALUE}).")
    String shape = "sum";

    /** True for the multi-stage shape; refuses an unknown one. */
    boolean multi() {
        return switch (shape) {
            case "sum" -> false;
            case "multi" -> true;
            default ->
                    throw new IllegalArgumentException(
                            "unknown --shape '" + shape + "'; use sum or multi");
        };
    }

    /** Records the sink receives: every input, or the multi shape's filter's survivors. */
    long expectedOutputs() {
        return multi() ? n - n / 5 : n;
    }

    /**
     * The start of a run's result line, which {@code compare} parses: {@code engine=<engine>
     * job=keyed-sum<source>[-to-file] mode=… N=… K=… P=… seconds=… records_per_s=…}.
     */
    String resultLine(String engine, String sourceSuffix, double seconds) {
        return String.format(
                Locale.ROOT,
                "engine=%s job=%s%s%s mode=%s N=%d K=%d P=%d seconds=%.3f records_per_s=%.0f",
                engine,
                multi() ? "multi-stage" : "keyed-sum",
                sourceSuffix,
                sinkKind.equals("file") ? "-to-file" : "",
                mode,
                n,
                k,
                p,
                seconds,
                n / seconds);
    }
}
