package dev.weir.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Weir on Flink against hand-written Flink: the keyed running sum, exactly-once, on a local
 * MiniCluster, the two jobs alternating in fresh JVMs ({@code keyed-sum --runner flink} and {@code
 * flink-keyed-sum} with the same arguments). Prints each run, then the medians and their ratio
 * (Weir-on-Flink / Flink; issue 17's goal is ≥ 0.8).
 */
@Command(
        name = "flink-runner-compare",
        description =
                "The keyed running sum as a Weir pipeline on FlinkRunner.local against the"
                        + " hand-written Flink job, alternating.")
public final class FlinkRunnerCompare implements Callable<Integer> {
    @Option(names = "--n", description = "Records (default ${DEFAULT-VALUE}).")
    long n = 20_000_000;

    @Option(names = "--k", description = "Distinct keys (default ${DEFAULT-VALUE}).")
    long k = 2;

    @Option(names = "--p", description = "Parallelism (default ${DEFAULT-VALUE}).")
    int p = 2;

    @Option(names = "--runs", description = "Runs per job (default ${DEFAULT-VALUE}).")
    int runs = 3;

    @Option(
            names = "--interval-ms",
            description = "Checkpoint interval (default ${DEFAULT-VALUE}).")
    long intervalMs = 1000;

    @Option(names = "--jvm", description = "Flags of every run's JVM (default '${DEFAULT-VALUE}').")
    String jvmFlags = "-Xms2g -Xmx2g -XX:+AlwaysPreTouch -XX:+UseParallelGC";

    @Override
    public Integer call() throws Exception {
        List<String> args =
                List.of(
                        "--n",
                        "" + n,
                        "--k",
                        "" + k,
                        "--p",
                        "" + p,
                        "--mode",
                        "eo",
                        "--interval-ms",
                        "" + intervalMs);
        double[] weirOnFlink = new double[runs];
        double[] flink = new double[runs];
        for (int run = 0; run < runs; run++) {
            // Alternate which goes first, so neither always meets a warmer machine.
            if (run % 2 == 0) {
                weirOnFlink[run] = rate(withCommand("keyed-sum", args, true));
                flink[run] = rate(withCommand("flink-keyed-sum", args, false));
            } else {
                flink[run] = rate(withCommand("flink-keyed-sum", args, false));
                weirOnFlink[run] = rate(withCommand("keyed-sum", args, true));
            }
        }
        double w = median(weirOnFlink);
        double f = median(flink);
        System.out.println(
                String.format(
                        Locale.ROOT,
                        "flink-runner-compare job=keyed-sum mode=eo N=%d K=%d P=%d runs=%d"
                                + " weir_on_flink=%.0f flink=%.0f ratio=%.2f",
                        n,
                        k,
                        p,
                        runs,
                        w,
                        f,
                        w / f));
        return 0;
    }

    private static List<String> withCommand(String command, List<String> args, boolean onFlink) {
        List<String> all = new ArrayList<>();
        all.add(command);
        all.addAll(args);
        if (onFlink) {
            all.add("--runner");
            all.add("flink");
        }
        return all;
    }

    private double rate(List<String> args) throws Exception {
        return Double.parseDouble(CompareBench.runFresh(jvmFlags, args).get("records_per_s"));
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted.length % 2 == 1
                ? sorted[sorted.length / 2]
                : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
    }
}
