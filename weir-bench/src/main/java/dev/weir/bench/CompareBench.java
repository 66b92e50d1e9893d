package dev.weir.bench;

import dev.weir.cli.ProgressReporter;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Runs the Weir-vs-Flink matrix: each row is one job configuration, run {@code --runs} times per
 * engine, alternating engines, each run in a fresh JVM with the same flags. Prints every run's
 * line, then a table of medians with the Weir/Flink ratio per row, and each row as one {@code
 * compare …} line. Throughput rows compare records/s (higher is better); the recovery row compares
 * milliseconds from an injected task failure to the first record processed after the restore (lower
 * is better).
 */
@Command(
        name = "compare",
        description = "Weir and Apache Flink side by side on the same jobs, as ratios.")
public final class CompareBench implements Callable<Integer> {
    static final String TUNED = "-Xms3g -Xmx3g -XX:+AlwaysPreTouch -XX:+UseParallelGC";

    @Option(names = "--n", description = "Records per throughput run (default ${DEFAULT-VALUE}).")
    long n = 50_000_000;

    @Option(names = "--p", description = "Parallelism of both engines (default ${DEFAULT-VALUE}).")
    int p = 2;

    @Option(names = "--runs", description = "Runs per engine and row (default ${DEFAULT-VALUE}).")
    int runs = 3;

    /**
     * A fixed, pre-touched heap (Flink's own launch scripts also set -Xms to -Xmx): otherwise the
     * kernel's zeroing of each heap page on first touch is charged to whichever engine allocates
     * fastest in its first second, and a 1-second run measures page faults more than the engine.
     */
    @Option(
            names = "--jvm",
            description =
                    "Flags of every run's JVM, instead of the profiles: for anything else (the rows"
                            + " then run once, under these flags).")
    String jvmFlags;

    /** The JVM profiles, by name: both engines always run on the same flags. */
    static final Map<String, String> PROFILES = Map.of("default", "-Xmx3g", "tuned", TUNED);

    @Option(
            names = "--profiles",
            split = ",",
            description =
                    "JVM profiles to run every row under (default ${DEFAULT-VALUE}): default = only"
                            + " -Xmx3g (G1, a growing heap: what a user gets), tuned = "
                            + TUNED)
    List<String> profiles = new ArrayList<>(List.of("default", "tuned"));

    @Option(
            names = "--recovery-keys",
            description =
                    "Keys of the recovery row: 5M keys ≈ 100 MB of state (default ${DEFAULT-VALUE}).")
    long recoveryKeys = 5_000_000;

    @Option(
            names = "--rows",
            split = ",",
            description = "Rows to run, by number from 1 (default: all).")
    List<Integer> only = new ArrayList<>();

    @Option(
            names = "--kafka-n",
            description = "Records of the Kafka throughput row (default ${DEFAULT-VALUE}).")
    long kafkaN = 2_000_000;

    @Option(names = "--kafka-k", description = "Keys of the Kafka rows (default ${DEFAULT-VALUE}).")
    long kafkaK = 100_000;

    @Option(
            names = "--kafka-rate",
            description =
                    "Records/s produced during the Kafka latency row (default ${DEFAULT-VALUE}).")
    long kafkaRate = 20_000;

    @Option(
            names = "--kafka-latency-seconds",
            description = "Length of a Kafka latency run (default ${DEFAULT-VALUE}).")
    long kafkaLatencySeconds = 20;

    @Option(
            names = "--nexmark",
            split = ",",
            description =
                    "Nexmark queries to run as rows job=nexmark-<query> (q0,q1,q2,q3,q4,q5,q7,q8,q11"
                            + " or all); alone, only these rows run.")
    List<String> nexmark = new ArrayList<>();

    @Option(
            names = "--warm",
            description =
                    "Measure each throughput run as the second of two in its JVM, both engines"
                            + " alike: the first run pays the JIT's compilation and the first touch"
                            + " of the young generation, the second is the steady state (default:"
                            + " one cold run per JVM, the figures the issues quote).")
    boolean warm;

    @Option(
            names = "--nexmark-n",
            description = "Events of each Nexmark run (default ${DEFAULT-VALUE}).")
    long nexmarkN = 10_000_000;

    /** One line of the matrix. */
    record Row(String job, String mode, long keys, List<String> args, String metric) {}

    List<Row> rows() {
        List<Row> rows = new ArrayList<>();
        for (long keys : new long[] {2, 100_000}) {
            for (String mode : List.of("none", "alo", "eo")) {
                rows.add(
                        new Row(
                                "keyed-sum",
                                mode,
                                keys,
                                List.of(
                                        "--n", "" + n, "--k", "" + keys, "--p", "" + p, "--mode",
                                        mode),
                                "records_per_s"));
            }
        }
        for (long keys : new long[] {2, 100_000}) {
            rows.add(
                    new Row(
                            "keyed-sum-to-file",
                            "eo",
                            keys,
                            List.of(
                                    "--n", "" + n, "--k", "" + keys, "--p", "" + p, "--mode", "eo",
                                    "--sink", "file"),
                            "records_per_s"));
        }
        long recoveryN = recoveryKeys * 8;
        rows.add(
                new Row(
                        "recovery",
                        "eo",
                        recoveryKeys,
                        List.of(
                                "--n",
                                "" + recoveryN,
                                "--k",
                                "" + recoveryKeys,
                                "--p",
                                "" + p,
                                "--mode",
                                "eo",
                                "--fail-at",
                                "" + (recoveryN * 3 / 4)),
                        "recovery_ms"));
        // Kafka to Kafka, exactly-once, against Flink's Kafka connector and Kafka Streams: run by
        // KafkaCompare with a broker of its own (a child process all three engines meet).
        rows.add(new Row("kafka-keyed-sum", "eo", kafkaK, List.of(), "records_per_s"));
        rows.add(new Row("kafka-latency", "eo", kafkaK, List.of(), "latency_ms"));
        // The second shape, so that nothing is tuned to one job: map, filter, keyBy, running sum,
        // keyBy, reduce, into the discarding sink and into each engine's exactly-once file sink.
        for (String sink : List.of("discard", "file")) {
            rows.add(
                    new Row(
                            sink.equals("file") ? "multi-stage-to-file" : "multi-stage",
                            "eo",
                            100_000,
                            List.of(
                                    "--n", "" + n, "--k", "100000", "--p", "" + p, "--mode", "eo",
                                    "--sink", sink, "--shape", "multi"),
                            "records_per_s"));
        }
        for (String query : nexmarkQueries()) {
            rows.add(
                    new Row(
                            "nexmark-" + query,
                            "eo",
                            -1,
                            List.of("--query", query, "--n", "" + nexmarkN, "--p", "" + p),
                            "records_per_s"));
        }
        return rows;
    }

    private List<String> nexmarkQueries() {
        return nexmark.equals(List.of("all"))
                ? dev.weir.bench.nexmark.WeirQueries.QUERIES
                : nexmark;
    }

    /** True if the row is to run: chosen by --rows, or a Nexmark row when only --nexmark is. */
    private boolean chosen(int number, Row row) {
        if (!only.isEmpty()) {
            return only.contains(number);
        }
        return nexmark.isEmpty() || row.job().startsWith("nexmark-");
    }

    @Override
    public Integer call() throws Exception {
        List<Row> rows = rows();
        List<String> summary = new ArrayList<>();
        StringBuilder table = new StringBuilder();
        table.append(
                "| # | JVM | job | mode | K | Weir | Flink | Weir/Flink | without an engine, over"
                        + " Flink |\n");
        table.append("|---|---|---|---|---|---|---|---|---|\n");
        Map<String, String> chosen = new java.util.LinkedHashMap<>();
        if (jvmFlags != null) {
            chosen.put("custom", jvmFlags);
        } else {
            for (String profile : profiles) {
                String flags = PROFILES.get(profile);
                if (flags == null) {
                    System.err.println(
                            "unknown --profiles entry '" + profile + "'; use default or tuned");
                    return 2;
                }
                chosen.put(profile, flags);
            }
        }
        long total = 0;
        boolean anyNexmark = false;
        for (int i = 0; i < rows.size(); i++) {
            if (chosen(i + 1, rows.get(i))) {
                total += unitsOf(rows.get(i));
                anyNexmark |= rows.get(i).job().startsWith("nexmark-");
            }
        }
        if (anyNexmark) {
            total += runs; // the generator alone, once per profile
        }
        progress =
                ProgressReporter.onStandardError("compare", total * chosen.size(), "engine runs");
        PrintStream out = System.out;
        System.setOut(progress.around(out));
        try {
            for (Map.Entry<String, String> profile : chosen.entrySet()) {
                flags = profile.getValue();
                name = profile.getKey();
                runRows(rows, table, summary);
            }
        } finally {
            progress.finish();
            System.setOut(out);
        }
        printTables(chosen, table, summary);
        return 0;
    }

    /** Child JVMs a row starts: each engine (and the job by hand, where it runs) once per run. */
    private long unitsOf(Row row) {
        if (row.job().startsWith("kafka")) {
            return (long) runs * KafkaCompare.ENGINES.size();
        }
        return (long) runs * (floorArgs(row) != null ? 3 : 2);
    }

    /**
     * The arguments of {@code keyed-sum-floor} for an exactly-once keyed-sum or multi-stage row
     * into the discarding sink: the same job written by hand with no engine, whose records/s over
     * Flink's is the ratio that row can show without an engine's cost; null for every other row.
     */
    List<String> floorArgs(Row row) {
        boolean multi = row.job().equals("multi-stage");
        if (!row.mode().equals("eo") || !(multi || row.job().equals("keyed-sum"))) {
            return null;
        }
        List<String> args =
                new ArrayList<>(
                        List.of(
                                "keyed-sum-floor",
                                "--n",
                                "" + n,
                                "--k",
                                "" + row.keys(),
                                "--p",
                                "" + p,
                                "--shape",
                                multi ? "multi" : "sum"));
        if (warm) {
            args.add("--runs");
            args.add("2");
        }
        return args;
    }

    private ProgressReporter progress;
    private long unitsDone;

    private String flags;
    private String name;

    private void runRows(List<Row> rows, StringBuilder table, List<String> summary)
            throws Exception {
        for (int i = 0; i < rows.size(); i++) {
            Row row = rows.get(i);
            if (!chosen(i + 1, row)) {
                continue;
            }
            if (row.job().startsWith("kafka")) {
                KafkaCompare kafka = kafka();
                kafka.profile(name, flags);
                progress.update(unitsDone, "row " + (i + 1) + " " + row.job() + " (" + name + ")");
                kafka.run(i + 1, row, table, summary);
                unitsDone += unitsOf(row);
                progress.update(unitsDone, "row " + (i + 1) + " " + row.job() + " (" + name + ")");
                continue;
            }
            boolean nexmarkRow = row.job().startsWith("nexmark-");
            String weirCommand = nexmarkRow ? "nexmark" : "keyed-sum";
            String flinkCommand = nexmarkRow ? "flink-nexmark" : "flink-keyed-sum";
            double[] weir = new double[runs];
            double[] flink = new double[runs];
            List<String> floorArgs = floorArgs(row);
            double[] floor = new double[runs];
            for (int run = 0; run < runs; run++) {
                // Alternate which engine goes first, so drift on a shared machine hits both (and
                // the job by hand goes last, then first).
                if (run % 2 == 0) {
                    weir[run] = runOnce(weirCommand, row);
                    flink[run] = runOnce(flinkCommand, row);
                    if (floorArgs != null) {
                        floor[run] = runFloor(floorArgs, row);
                    }
                } else {
                    if (floorArgs != null) {
                        floor[run] = runFloor(floorArgs, row);
                    }
                    flink[run] = runOnce(flinkCommand, row);
                    weir[run] = runOnce(weirCommand, row);
                }
            }
            double w = median(weir);
            double f = median(flink);
            String ceiling = "";
            String ceilingCell = "-";
            if (nexmarkRow) {
                // What the shared generator alone reaches, over Flink: no engine's ratio can pass
                // it.
                double generatorRatio = generator(summary) / f;
                ceiling = String.format(Locale.ROOT, " ceiling=%.2f", generatorRatio);
                ceilingCell = String.format(Locale.ROOT, "generator %.2f", generatorRatio);
            } else if (floorArgs != null) {
                // The same job by hand, no engine, no guarantee, over Flink: what the job's own
                // work allows (not a bound: code written for one job can do better still).
                double floorRatio = median(floor) / f;
                ceiling = String.format(Locale.ROOT, " by_hand=%.2f", floorRatio);
                ceilingCell = String.format(Locale.ROOT, "by hand %.2f", floorRatio);
            }
            boolean time = row.metric().equals("recovery_ms");
            String unit = time ? " ms" : " rec/s";
            table.append(
                    String.format(
                            Locale.ROOT,
                            "| %d | %s | %s | %s | %s | %s%s | %s%s | %.2f | %s |%n",
                            i + 1,
                            name,
                            row.job(),
                            row.mode(),
                            keys(row),
                            format(w, time),
                            unit,
                            format(f, time),
                            unit,
                            w / f,
                            ceilingCell));
            summary.add(
                    String.format(
                            Locale.ROOT,
                            "compare job=%s mode=%s K=%s weir=%.0f flink=%.0f ratio=%.2f%s%s"
                                    + " jvm=%s%s",
                            row.job(),
                            row.mode(),
                            keys(row),
                            w,
                            f,
                            w / f,
                            ceiling,
                            time ? " unit=ms" : "",
                            name,
                            warm && !time ? " warm" : ""));
            System.out.println(summary.get(summary.size() - 1));
        }
    }

    /** The generator's events/s alone under each profile, measured at its first Nexmark row. */
    private final Map<String, Double> generatorRates = new HashMap<>();

    /**
     * The median events/s of the Nexmark generator alone ({@code nexmark-generator}, in fresh JVMs
     * with this profile's flags, as many runs as the engines): the ceiling of every Nexmark row.
     */
    private double generator(List<String> summary) throws Exception {
        Double known = generatorRates.get(name);
        if (known != null) {
            return known;
        }
        Row row =
                new Row(
                        "nexmark-generator",
                        "-",
                        -1,
                        List.of("--n", "" + nexmarkN, "--p", "" + p),
                        "records_per_s");
        double[] rates = new double[runs];
        for (int run = 0; run < runs; run++) {
            rates[run] = runOnce("nexmark-generator", row);
        }
        double rate = median(rates);
        generatorRates.put(name, rate);
        summary.add(
                String.format(
                        Locale.ROOT,
                        "compare job=nexmark-generator generator=%.0f jvm=%s%s",
                        rate,
                        name,
                        warm ? " warm" : ""));
        System.out.println(summary.get(summary.size() - 1));
        return rate;
    }

    private void printTables(Map<String, String> chosen, StringBuilder table, List<String> summary)
            throws Exception {
        System.out.printf(
                Locale.ROOT,
                "%nMedians of %d runs per engine, each in a fresh JVM%s (%s), P=%d, N=%d"
                        + " (Nexmark rows: %d events); throughput in records/s (Weir/Flink > 1:"
                        + " Weir faster), recovery in ms (Weir/Flink < 1: Weir faster).%n%n",
                runs,
                warm ? " after a first run in it (--warm: steady state)" : "",
                chosen,
                p,
                n,
                nexmarkN);
        System.out.print(table);
        System.out.println();
        summary.forEach(System.out::println);
        if (kafka != null) {
            kafka.close();
        }
    }

    private KafkaCompare kafka;

    private KafkaCompare kafka() throws Exception {
        if (kafka == null) {
            kafka =
                    new KafkaCompare(
                            runs, flags, p, kafkaN, kafkaK, kafkaRate, kafkaLatencySeconds);
        }
        return kafka;
    }

    /** The row's key count, or "-" where the job has no such parameter (Nexmark). */
    private static String keys(Row row) {
        return row.keys() < 0 ? "-" : Long.toString(row.keys());
    }

    private static String format(double value, boolean time) {
        return time
                ? String.format(Locale.ROOT, "%.0f", value)
                : String.format(Locale.ROOT, "%,.0f", value);
    }

    /** Outputs of the first run of each Nexmark row, which every other run must match. */
    private final Map<String, String> nexmarkOutputs = new HashMap<>();

    /**
     * Runs one engine on one row in a fresh JVM; returns the row's metric. A Nexmark run's count of
     * results must equal the first run's of the row (either engine).
     */
    private double runOnce(String command, Row row) throws Exception {
        progress.update(
                unitsDone, row.job() + " " + row.mode() + " K=" + keys(row) + ": " + command);
        try {
            return runOnceUncounted(command, row);
        } finally {
            unitsDone++;
            progress.update(unitsDone, row.job() + " " + row.mode() + " K=" + keys(row));
        }
    }

    /** The arguments of one run of {@code command} for {@code row}. */
    List<String> argsFor(String command, Row row) {
        List<String> args = new ArrayList<>();
        args.add(command);
        args.addAll(row.args());
        if (warm && row.metric().equals("records_per_s")) {
            // runFresh reads the last run's line: the second, warm one.
            args.add("--runs");
            args.add("2");
        }
        return args;
    }

    /** One run of the hand-written job in a fresh JVM with the profile's flags: its records/s. */
    private double runFloor(List<String> args, Row row) throws Exception {
        progress.update(unitsDone, row.job() + " " + row.mode() + " K=" + keys(row) + ": by hand");
        try {
            return Double.parseDouble(runFresh(flags, args).get("records_per_s"));
        } finally {
            unitsDone++;
            progress.update(unitsDone, row.job() + " " + row.mode() + " K=" + keys(row));
        }
    }

    private double runOnceUncounted(String command, Row row) throws Exception {
        Map<String, String> fields = runFresh(flags, argsFor(command, row));
        if (row.job().startsWith("nexmark-")) {
            String first = nexmarkOutputs.putIfAbsent(row.job(), fields.get("outputs"));
            if (first != null && !first.equals(fields.get("outputs"))) {
                throw new IllegalStateException(
                        command
                                + " "
                                + row.job()
                                + " emitted "
                                + fields.get("outputs")
                                + " results, an earlier run "
                                + first);
            }
        }
        return Double.parseDouble(fields.get(row.metric()));
    }

    /**
     * Runs {@code weir-bench <args>} in a fresh JVM with {@code jvmFlags}; returns the fields of
     * its {@code engine=…} line, which it also prints.
     */
    static Map<String, String> runFresh(String jvmFlags, List<String> args) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(Arrays.asList(jvmFlags.trim().split("\\s+")));
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(BenchMain.class.getName());
        cmd.addAll(args);
        Process process = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String result = null;
        List<String> output = new ArrayList<>();
        try (BufferedReader reader =
                new BufferedReader(
                        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = reader.readLine()) != null; ) {
                output.add(line);
                if (line.startsWith("engine=")) {
                    result = line;
                }
            }
        }
        int status = process.waitFor();
        if (status != 0 || result == null) {
            throw new IllegalStateException(
                    args
                            + " failed (exit "
                            + status
                            + "):\n"
                            + String.join(
                                    "\n",
                                    output.subList(
                                            Math.max(0, output.size() - 30), output.size())));
        }
        System.out.println("  " + result);
        Map<String, String> fields = new HashMap<>();
        for (String part : result.split(" ")) {
            int eq = part.indexOf('=');
            if (eq > 0) {
                fields.put(part.substring(0, eq), part.substring(eq + 1));
            }
        }
        return fields;
    }

    /** The median; of an even count, the mean of the middle two. */
    static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted.length % 2 == 1
                ? sorted[sorted.length / 2]
                : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
    }
}
