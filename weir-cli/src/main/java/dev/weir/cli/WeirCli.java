package dev.weir.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code weir} command. */
@Command(
        name = "weir",
        mixinStandardHelpOptions = true,
        version = "weir 0.1.0",
        description = "Weir: an embeddable stream processor with end-to-end exactly-once.",
        subcommands = {
            DemoCommand.class,
            LogCommand.class,
            VerifyCommand.class,
            KafkaCommand.class
        })
public final class WeirCli implements Callable<Integer> {
    @Override
    public Integer call() {
        CommandLine.usage(this, System.out);
        return 0;
    }

    /** Runs the command line and exits with its status. */
    public static void main(String[] args) {
        System.exit(new CommandLine(new WeirCli()).execute(args));
    }
}
