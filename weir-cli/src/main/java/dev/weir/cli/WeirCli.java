package dev.weir.cli;

import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

/**
 * The {@code weir} command.
 *
 * <p>Conventions every subcommand follows (and {@code WeirCliTest} checks): {@code --help} and
 * {@code --version} anywhere; a usage error (unknown option, missing or invalid argument, a number
 * out of range) is one line on standard error and status 2; a failure while running is one line on
 * standard error and status 1, with the stack trace only under {@code --verbose}. A command that
 * only groups subcommands ({@code weir}, {@code weir log}, {@code weir kafka}), given none, prints
 * its usage on standard error with status 2.
 */
@Command(
        name = "weir",
        mixinStandardHelpOptions = true,
        scope = ScopeType.INHERIT,
        version = "weir 0.1.0",
        description = "Weir: an embeddable stream processor with end-to-end exactly-once.",
        subcommands = {
            DemoCommand.class,
            LogCommand.class,
            InspectCommand.class,
            VerifyCommand.class,
            KafkaCommand.class
        })
public final class WeirCli implements Callable<Integer> {
    /** Status of a usage error (picocli's convention, and the shell's for a misused builtin). */
    public static final int USAGE = 2;

    /** Status of a failure while running. */
    public static final int FAILURE = 1;

    @Option(
            names = "--verbose",
            scope = ScopeType.INHERIT,
            description = "Print the stack trace of a failure.")
    boolean verbose;

    @Spec CommandSpec spec;

    @Override
    public Integer call() {
        return missingSubcommand(spec);
    }

    /**
     * What a command that only groups subcommands does when given none: a line saying so, then its
     * usage, on standard error; status {@link #USAGE}.
     */
    static int missingSubcommand(CommandSpec spec) {
        CommandLine command = spec.commandLine();
        PrintWriter err = command.getErr();
        err.println(
                spec.qualifiedName()
                        + ": missing subcommand; one of "
                        + String.join(
                                ", ",
                                command.getSubcommands().keySet().stream()
                                        .filter(name -> !name.equals("help"))
                                        .toList()));
        err.flush();
        command.usage(err);
        err.flush();
        return USAGE;
    }

    /** Runs the command line and exits with its status. */
    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** The command line with Weir's error conventions; tests run it as {@link #main} does. */
    public static CommandLine commandLine() {
        CommandLine cli = new CommandLine(new WeirCli());
        cli.setParameterExceptionHandler(WeirCli::usageError);
        cli.setExecutionExceptionHandler(
                (e, command, parseResult) -> failure(e, command, parseResult));
        return cli;
    }

    private static int usageError(ParameterException e, String[] args) {
        CommandLine command = e.getCommandLine();
        PrintWriter err = command.getErr();
        err.println(
                command.getCommandSpec().qualifiedName()
                        + ": "
                        + oneLine(e.getMessage())
                        + " (see '"
                        + command.getCommandSpec().qualifiedName()
                        + " --help')");
        err.flush();
        return USAGE;
    }

    private static int failure(Exception e, CommandLine command, ParseResult parseResult) {
        if (e instanceof ParameterException usage) {
            return usageError(usage, new String[0]);
        }
        PrintWriter err = command.getErr();
        err.println(command.getCommandSpec().qualifiedName() + ": " + describe(e));
        if (verbose(parseResult)) {
            e.printStackTrace(err);
        }
        err.flush();
        return FAILURE;
    }

    /**
     * One line naming the failure: the first message found from the exception down its causes,
     * prefixed by the exception's type if it carries none of its own.
     */
    static String describe(Throwable e) {
        int depth = 0; // bounded: causes can form a loop
        for (Throwable t = e; t != null && depth < 100; t = t.getCause(), depth++) {
            // A file system failure's message is often the path alone ("weir verify:
            // /proc/nope"): say what went wrong, unless a wrapper above it said more than it.
            if (t instanceof java.nio.file.FileSystemException fs) {
                return fileProblem(fs);
            }
            boolean onlyWraps =
                    t.getCause() != null
                            && (t.getMessage() == null
                                    || t.getMessage().equals(t.getCause().toString()));
            if (!onlyWraps) {
                break;
            }
        }
        depth = 0;
        for (Throwable t = e; t != null && depth < 100; t = t.getCause(), depth++) {
            if (t.getMessage() != null && !t.getMessage().isBlank()) {
                String message = oneLine(t.getMessage());
                return t == e ? message : e.getClass().getSimpleName() + ": " + message;
            }
        }
        return e.getClass().getName();
    }

    /** A file system failure as "path: what went wrong" (and the other path, if any). */
    static String fileProblem(java.nio.file.FileSystemException e) {
        String what;
        if (e.getReason() != null && !e.getReason().isBlank()) {
            what = e.getReason();
        } else if (e instanceof java.nio.file.AccessDeniedException) {
            what = "permission denied";
        } else if (e instanceof java.nio.file.NoSuchFileException) {
            what = "no such file or directory";
        } else if (e instanceof java.nio.file.FileAlreadyExistsException) {
            what = "already exists";
        } else if (e instanceof java.nio.file.NotDirectoryException) {
            what = "not a directory";
        } else if (e instanceof java.nio.file.DirectoryNotEmptyException) {
            what = "directory not empty";
        } else {
            what = e.getClass().getSimpleName();
        }
        return oneLine(
                (e.getFile() == null ? "" : e.getFile() + ": ")
                        + what
                        + (e.getOtherFile() == null ? "" : " (and " + e.getOtherFile() + ")"));
    }

    private static String oneLine(String message) {
        return message.strip().replaceAll("\\s*\\R\\s*", " ");
    }

    private static boolean verbose(ParseResult parseResult) {
        for (ParseResult r = parseResult; r != null; r = r.subcommand()) {
            if (r.hasMatchedOption("--verbose")) {
                return true;
            }
        }
        return false;
    }
}
