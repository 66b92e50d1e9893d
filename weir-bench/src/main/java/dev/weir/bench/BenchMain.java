package dev.weir.bench;

import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** Entry point of {@code weir-bench.jar}. */
@Command(
        name = "weir-bench",
        mixinStandardHelpOptions = true,
        scope = CommandLine.ScopeType.INHERIT, // --help and --version on every subcommand too
        description = "Benchmarks of Weir (and, side by side, Apache Flink and Kafka Streams).",
        subcommands = {
            KeyedSumBench.class,
            FlinkKeyedSumBench.class,
            FlinkRunnerCompare.class,
            CompareBench.class,
            KafkaKeyedSumBench.class,
            KafkaBrokerCommand.class,
            LogBench.class,
            JdbcBench.class,
            NexmarkBench.class,
            NexmarkGeneratorBench.class,
            KeyedSumFloorBench.class,
            FlinkNexmarkBench.class
        })
public final class BenchMain implements Callable<Integer> {
    @Override
    public Integer call() {
        CommandLine.usage(this, System.out);
        return 0;
    }

    /** Runs the command line and exits with its status. */
    public static void main(String[] args) {
        System.exit(new CommandLine(new BenchMain()).execute(args));
    }
}
