package dev.weir.bench;

import dev.weir.kafka.testkit.BrokerProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Starts the benchmarks' single Kafka broker (a child process) and keeps it until this command is
 * stopped, for running {@code kafka-keyed-sum} by hand or under a profiler.
 */
@Command(
        name = "kafka-broker",
        description =
                "Runs a single-node Kafka broker (child process) until stopped; prints its address.")
public final class KafkaBrokerCommand implements Callable<Integer> {
    @Option(names = "--dir", description = "Broker directory (default: a new temporary one).")
    Path dir;

    @Override
    public Integer call() throws Exception {
        Path home = dir != null ? dir : Files.createTempDirectory("bench-broker-");
        try (BrokerProcess broker =
                BrokerProcess.start(home, BrokerProcess.thisClassPath(), Map.of())) {
            System.out.println("bootstrap=" + broker.bootstrapServers() + " pid=" + broker.pid());
            System.out.flush();
            Thread.currentThread().join();
        }
        return 0;
    }
}
