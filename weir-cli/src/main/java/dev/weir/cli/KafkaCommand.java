package dev.weir.cli;

import dev.weir.api.checkpoint.CheckpointView;
import dev.weir.api.sink.JobInstance;
import dev.weir.kafka.KafkaSink;
import dev.weir.kafka.KafkaTransactions;
import dev.weir.kafka.SinkTransactions;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code weir kafka}: Kafka connector tools. */
@Command(
        name = "kafka",
        description = "Tools for Weir's Kafka connector.",
        subcommands = {KafkaCommand.Transactions.class})
public final class KafkaCommand implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Override
    public Integer call() {
        return WeirCli.missingSubcommand(spec);
    }

    /** {@code weir kafka transactions}: a stopped job's open Kafka transactions. */
    @Command(
            name = "transactions",
            description = {
                "Lists the Kafka transactions of an exactly-once KafkaSink of a job that will not"
                        + " be started again: the pre-committed ones its newest complete"
                        + " checkpoint holds (a restart would commit them) and the other open ones"
                        + " of the sink (a restart would abort them). Until they end, they hold"
                        + " back every read_committed reader of their partitions, up to the"
                        + " producer's transaction.timeout.ms.",
                "--commit does what a restart would: commits the checkpoint's transactions and"
                        + " aborts the rest. --abort aborts them all: the checkpoint's records"
                        + " never appear. Never on a job that runs.",
                "Example: weir kafka transactions --checkpoints /var/lib/app/chk"
                        + " --bootstrap-servers localhost:9092 --job orders --sink out"
            })
    static final class Transactions implements Callable<Integer> {
        @Option(
                names = "--checkpoints",
                required = true,
                description = "The job's checkpoint directory.")
        Path checkpoints;

        @Option(
                names = "--bootstrap-servers",
                required = true,
                description = "The Kafka cluster the sink writes to.")
        String bootstrapServers;

        @Option(names = "--sink", required = true, description = "The sink's name in the job.")
        String sink;

        @Option(
                names = "--job",
                description =
                        "The job's name (Pipeline.create(name)); gives the default transactional"
                                + " id prefix weir:<job>:<sink>.")
        String job;

        @Option(
                names = "--prefix",
                description = "The sink's transactionalIdPrefix, if it set one.")
        String prefix;

        @Option(
                names = "--property",
                description = "A client property (security settings), key=value; repeatable.")
        List<String> properties = List.of();

        @ArgGroup(exclusive = true)
        Action action;

        static final class Action {
            @Option(names = "--commit", description = "Commit the checkpoint's, abort the rest.")
            boolean commit;

            @Option(names = "--abort", description = "Abort every open transaction of the sink.")
            boolean abort;
        }

        @Spec CommandSpec spec;

        PrintStream out = System.out;

        @Override
        public Integer call() {
            if (prefix == null && job == null) {
                throw new ParameterException(
                        spec.commandLine(), "give --job (or --prefix if the sink set one)");
            }
            if (!Files.isDirectory(checkpoints)) {
                throw new ParameterException(
                        spec.commandLine(), "no checkpoint directory " + checkpoints);
            }
            String sinkPrefix = prefix != null ? prefix : KafkaSink.defaultPrefix(job, sink);
            Map<String, String> props = new HashMap<>();
            for (String property : properties) {
                int eq = property.indexOf('=');
                if (eq <= 0) {
                    throw new ParameterException(
                            spec.commandLine(), "--property takes key=value: " + property);
                }
                props.put(property.substring(0, eq), property.substring(eq + 1));
            }
            if (action != null) {
                SinkTransactions.requireNoRunningJob(checkpoints);
            }
            try (KafkaTransactions cluster = KafkaTransactions.connect(bootstrapServers, props)) {
                if (action != null && action.commit) {
                    List<String> lines =
                            SinkTransactions.commit(checkpoints, sink, sinkPrefix, cluster);
                    lines.forEach(out::println);
                    long lost = lines.stream().filter(l -> l.startsWith("LOST")).count();
                    if (lost > 0) {
                        throw new IllegalStateException(
                                lost
                                        + " transaction(s) were aborted before they could be"
                                        + " committed: their records are lost from the output."
                                        + " Raise KafkaSink.transactionTimeout; to write them"
                                        + " again, restore an older checkpoint (fromSavepoint)");
                    }
                } else if (action != null && action.abort) {
                    SinkTransactions.abort(checkpoints, sink, sinkPrefix, cluster)
                            .forEach(out::println);
                } else {
                    print(
                            SinkTransactions.list(checkpoints, sink, sinkPrefix, cluster),
                            sinkPrefix,
                            ownerLine(cluster, sinkPrefix));
                }
            }
            return 0;
        }

        /** Who claimed the prefix, and whether that is this directory's job; null if nobody. */
        private String ownerLine(KafkaTransactions cluster, String sinkPrefix) {
            JobInstance owner = cluster.owner(sinkPrefix).orElse(null);
            if (owner == null) {
                return null;
            }
            boolean ours =
                    CheckpointView.instanceId(checkpoints)
                            .map(owner.instanceId()::equals)
                            .orElse(false);
            return owner.describe()
                    + (ours
                            ? " (this directory's job)"
                            : " (NOT this directory's job: the open transactions are that job's;"
                                    + " --commit and --abort refuse)");
        }

        private void print(SinkTransactions.Listing listing, String sinkPrefix, String owner) {
            out.println("sink '" + sink + "', transactional id prefix " + sinkPrefix);
            if (owner != null) {
                out.println("prefix owned by " + owner);
            }
            if (listing.checkpoint() == null) {
                out.println("no complete checkpoint in " + checkpoints);
            } else {
                out.println("newest complete checkpoint: " + listing.checkpoint());
            }
            for (SinkTransactions.Pending p : listing.pending()) {
                out.println(
                        (p.committed() ? "committed   " : "pre-committed ")
                                + SinkTransactions.describe(p.committable())
                                + " state "
                                + p.state());
            }
            for (String id : listing.lingering()) {
                out.println("open        " + id + " (not in the checkpoint: a restart aborts it)");
            }
            long open =
                    listing.pending().stream().filter(p -> !p.committed()).count()
                            + listing.lingering().size();
            out.println(
                    open == 0
                            ? "nothing open"
                            : open
                                    + " open; end them with --commit (as a restart would) or"
                                    + " --abort");
        }
    }
}
