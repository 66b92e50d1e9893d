package dev.weir.bench;

import dev.weir.kafka.testkit.BrokerProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The Kafka rows of {@code compare}: the keyed running sum Kafka → Kafka, exactly-once, on Weir,
 * Flink 2.3 (its Kafka connector) and Kafka Streams (EOS v2), against one broker that this class
 * starts as a child process, so the three engines meet the same broker. Each run is a fresh JVM
 * ({@code kafka-keyed-sum}) with a fresh output topic; engines alternate in rotating order.
 *
 * <p>Throughput row: N records are produced into one input topic once, untimed, before the runs;
 * each run consumes all of them. Latency row: each run gets a fresh input topic that its own JVM
 * produces into at a fixed rate, and measures produce → read_committed consumption.
 *
 * <p>Lines: {@code compare job=kafka-keyed-sum mode=eo K=… weir=… flink=… kstreams=… clients=…
 * ratio=… kstreams_ratio=… clients_ratio=…} (records/s medians; {@code ratio} is Weir/Flink as in
 * the other rows, {@code kstreams_ratio} Weir/Kafka Streams, {@code clients_ratio} bare
 * clients/Flink: the highest ratio to Flink any engine could reach here), and {@code compare
 * job=kafka-latency mode=eo K=… rate=… weir_p50_ms=… weir_p99_ms=… flink_p50_ms=… flink_p99_ms=…
 * kstreams_p50_ms=… kstreams_p99_ms=… clients_p50_ms=… clients_p99_ms=… unit=ms} (medians over the
 * runs of each percentile).
 */
final class KafkaCompare implements AutoCloseable {
    /**
     * The engines, and {@code clients}: the job's least work on bare Kafka clients, with no durable
     * state (not exactly-once), run beside them as the ceiling the broker sets on the machine.
     */
    static final List<String> ENGINES = List.of("weir", "flink", "kstreams", "clients");

    static final int PARTITIONS = 4;

    private final int runs;
    private String jvmFlags;

    /** The JVM profile the next rows run under, and its name in the table and summary. */
    private String profile = "custom";

    void profile(String name, String flags) {
        profile = name;
        jvmFlags = flags;
    }

    private final int p;
    private final long n;
    private final long k;
    private final long rate;
    private final long latencySeconds;
    private final BrokerProcess broker;
    private int topics;
    private String throughputInput;

    KafkaCompare(int runs, String jvmFlags, int p, long n, long k, long rate, long latencySeconds)
            throws Exception {
        this.runs = runs;
        this.jvmFlags = jvmFlags;
        this.p = p;
        this.n = n;
        this.k = k;
        this.rate = rate;
        this.latencySeconds = latencySeconds;
        Path dir = Files.createTempDirectory("bench-broker-");
        this.broker =
                BrokerProcess.start(
                        dir, BrokerProcess.thisClassPath(), Map.of("num.io.threads", "4"));
        System.out.println(
                "kafka broker " + broker.bootstrapServers() + " (pid " + broker.pid() + ")");
    }

    private String topic(String kind) {
        return "bench-" + kind + "-" + (++topics);
    }

    /** Engines in the order of run {@code run}: rotated, so none is always first. */
    private static List<String> order(int run) {
        List<String> order = new ArrayList<>();
        for (int i = 0; i < ENGINES.size(); i++) {
            order.add(ENGINES.get((i + run) % ENGINES.size()));
        }
        return order;
    }

    void run(int number, CompareBench.Row row, StringBuilder table, List<String> summary)
            throws Exception {
        if (row.job().equals("kafka-keyed-sum")) {
            throughput(number, table, summary);
        } else {
            latency(number, table, summary);
        }
    }

    private List<String> args(String engine, String input, String output, long records) {
        List<String> args = new ArrayList<>();
        args.add("kafka-keyed-sum");
        args.addAll(
                List.of(
                        "--engine",
                        engine,
                        "--bootstrap",
                        broker.bootstrapServers(),
                        "--input",
                        input,
                        "--output",
                        output,
                        "--partitions",
                        "" + PARTITIONS,
                        "--n",
                        "" + records,
                        "--k",
                        "" + k,
                        "--p",
                        "" + p,
                        "--interval-ms",
                        "1000"));
        return args;
    }

    private void throughput(int number, StringBuilder table, List<String> summary)
            throws Exception {
        if (throughputInput == null) {
            throughputInput = topic("in");
            KafkaBenchSupport.createTopic(broker.bootstrapServers(), throughputInput, PARTITIONS);
            long start = System.nanoTime();
            KafkaBenchSupport.produceAll(broker.bootstrapServers(), throughputInput, n, k);
            System.out.printf(
                    Locale.ROOT,
                    "  produced %d input records in %.1f s (untimed)%n",
                    n,
                    (System.nanoTime() - start) / 1e9);
        }
        double[][] results = new double[ENGINES.size()][runs];
        for (int run = 0; run < runs; run++) {
            for (String engine : order(run)) {
                Map<String, String> fields =
                        CompareBench.runFresh(
                                jvmFlags, args(engine, throughputInput, topic("out"), n));
                results[ENGINES.indexOf(engine)][run] =
                        Double.parseDouble(fields.get("records_per_s"));
            }
        }
        double weir = CompareBench.median(results[0]);
        double flink = CompareBench.median(results[1]);
        double kstreams = CompareBench.median(results[2]);
        double clients = CompareBench.median(results[3]);
        table.append(
                String.format(
                        Locale.ROOT,
                        "| %d | %s | kafka-keyed-sum, N=%d, Kafka→Kafka | eo | %d | %,.0f rec/s |"
                                + " %,.0f rec/s | %.2f | (Kafka Streams %,.0f rec/s, Weir/KStreams"
                                + " %.2f; bare clients %,.0f rec/s, clients/Flink %.2f) |%n",
                        number,
                        profile,
                        n,
                        k,
                        weir,
                        flink,
                        weir / flink,
                        kstreams,
                        weir / kstreams,
                        clients,
                        clients / flink));
        summary.add(
                String.format(
                        Locale.ROOT,
                        "compare job=kafka-keyed-sum mode=eo K=%d weir=%.0f flink=%.0f kstreams=%.0f"
                                + " clients=%.0f ratio=%.2f kstreams_ratio=%.2f clients_ratio=%.2f"
                                + " jvm=%s",
                        k,
                        weir,
                        flink,
                        kstreams,
                        clients,
                        weir / flink,
                        weir / kstreams,
                        clients / flink,
                        profile));
        System.out.println(summary.get(summary.size() - 1));
    }

    private void latency(int number, StringBuilder table, List<String> summary) throws Exception {
        long records = rate * latencySeconds;
        double[][] p50 = new double[ENGINES.size()][runs];
        double[][] p99 = new double[ENGINES.size()][runs];
        for (int run = 0; run < runs; run++) {
            for (String engine : order(run)) {
                String input = topic("latency-in");
                KafkaBenchSupport.createTopic(broker.bootstrapServers(), input, PARTITIONS);
                List<String> args = args(engine, input, topic("latency-out"), records);
                args.addAll(List.of("--rate", "" + rate));
                Map<String, String> fields = CompareBench.runFresh(jvmFlags, args);
                p50[ENGINES.indexOf(engine)][run] =
                        Double.parseDouble(fields.get("latency_p50_ms"));
                p99[ENGINES.indexOf(engine)][run] =
                        Double.parseDouble(fields.get("latency_p99_ms"));
            }
        }
        StringBuilder line =
                new StringBuilder(
                        String.format(
                                Locale.ROOT,
                                "compare job=kafka-latency mode=eo K=%d rate=%d",
                                k,
                                rate));
        StringBuilder cells = new StringBuilder();
        for (int e = 0; e < ENGINES.size(); e++) {
            double m50 = CompareBench.median(p50[e]);
            double m99 = CompareBench.median(p99[e]);
            line.append(
                    String.format(
                            Locale.ROOT,
                            " %s_p50_ms=%.0f %s_p99_ms=%.0f",
                            ENGINES.get(e),
                            m50,
                            ENGINES.get(e),
                            m99));
            cells.append(
                    String.format(Locale.ROOT, "%s %.0f / %.0f ms; ", ENGINES.get(e), m50, m99));
        }
        line.append(" unit=ms jvm=").append(profile);
        table.append(
                String.format(
                        Locale.ROOT,
                        "| %d | %s | kafka end-to-end latency p50 / p99, %d rec/s | eo | %d | %s |  |"
                                + "  |%n",
                        number,
                        profile,
                        rate,
                        k,
                        cells.toString().strip()));
        summary.add(line.toString());
        System.out.println(line);
    }

    @Override
    public void close() throws InterruptedException {
        broker.close();
    }
}
