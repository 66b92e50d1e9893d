package dev.weir.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine;

/** The conventions every {@code weir} command follows: help, usage errors, failures. */
class WeirCliTest {
    @TempDir Path dir;

    /** Every command and subcommand, as the words that name it ("log", "create"). */
    static Stream<List<String>> commands() {
        List<List<String>> all = new ArrayList<>();
        collect(WeirCli.commandLine(), new ArrayList<>(), all);
        return all.stream();
    }

    private static void collect(CommandLine command, List<String> path, List<List<String>> all) {
        all.add(List.copyOf(path));
        command.getSubcommands()
                .forEach(
                        (name, sub) -> {
                            if (!name.equals("help")) {
                                List<String> next = new ArrayList<>(path);
                                next.add(name);
                                collect(sub, next, all);
                            }
                        });
    }

    @Test
    void theCommandTreeHoldsEveryCommandTheReadmeNames() {
        assertThat(commands().map(words -> String.join(" ", words)))
                .contains(
                        "demo",
                        "log",
                        "log create",
                        "log append",
                        "log tail",
                        "log offsets",
                        "log topics",
                        "inspect",
                        "verify",
                        "kafka",
                        "kafka transactions");
    }

    @ParameterizedTest
    @MethodSource("commands")
    void helpWorksOnEveryCommandAndSubcommand(List<String> words) {
        for (String help : List.of("--help", "-h")) {
            List<String> args = new ArrayList<>(words);
            args.add(help);
            Cli.Result result = Cli.run("", args.toArray(String[]::new));
            assertThat(result.status()).as("status of weir %s", args).isZero();
            assertThat(result.out()).startsWith("Usage: weir" + prefixed(words));
            assertThat(result.err()).isEmpty();
        }
    }

    private static String prefixed(List<String> words) {
        return words.isEmpty() ? " " : " " + String.join(" ", words) + " ";
    }

    @ParameterizedTest
    @MethodSource("usageErrors")
    void aUsageErrorIsOneLineOnStandardErrorWithStatusTwo(List<String> args, String message) {
        Cli.Result result = Cli.run("", args.toArray(String[]::new));
        assertThat(result.status()).isEqualTo(2);
        assertThat(result.err().lines()).hasSize(1);
        assertThat(result.err()).contains(message).contains("--help");
        assertThat(result.out()).isEmpty();
    }

    static Stream<org.junit.jupiter.params.provider.Arguments> usageErrors() {
        return Stream.of(
                usage("unknown-command", "Unmatched argument", "frobnicate"),
                usage("unknown option", "Unknown option: '--nope'", "demo", "--nope"),
                usage("missing topic", "Missing required parameter", "log", "create"),
                usage(
                        "unknown verify runner",
                        "weir verify: unknown runner 'nope'; use local or flink",
                        "verify",
                        "--runner",
                        "nope"),
                usage(
                        "unknown verify sink",
                        "unknown sink 'nope'; use file, log, postgres or kafka",
                        "verify",
                        "--sink",
                        "nope"),
                usage(
                        "unknown demo runner",
                        "weir demo: unknown --runner 'x'",
                        "demo",
                        "--runner",
                        "x"),
                usage(
                        "negative partitions",
                        "'--partitions': '-1' is not a partition count within 1..10000",
                        "log",
                        "create",
                        "t",
                        "--partitions",
                        "-1"),
                usage(
                        "too many partitions",
                        "weir log create: Invalid value for option '--partitions': '100000' is not"
                                + " a partition count within 1..10000",
                        "log",
                        "create",
                        "--partitions=100000",
                        "t2"),
                usage(
                        "topic name out of the directory",
                        "weir log create: topic name '../evil' is not allowed",
                        "log",
                        "create",
                        "../evil"),
                usage(
                        "too many keys for the verifier",
                        "weir verify: --keys must be within 1..1000000",
                        "verify",
                        "--keys=2000000000",
                        "--records=1",
                        "--kills=1"),
                usage(
                        "too many records for the verifier",
                        "weir verify: --records must be within 1..10000000",
                        "verify",
                        "--records=20000000000",
                        "--kills=1"),
                usage(
                        "too few records for the windows self-check",
                        "weir verify: --records must be at least 5000 for the self-check of the"
                                + " windows workload, not 10: ",
                        "verify",
                        "--workload",
                        "windows",
                        "--records",
                        "10"),
                usage(
                        "too few records for the count self-check",
                        "weir verify: --records must be at least 500 for the self-check of the"
                                + " count workload, not 10: ",
                        "verify",
                        "--records",
                        "10"),
                usage("zero batch", "'--batch': '0'", "log", "append", "t", "--batch", "0"),
                usage(
                        "negative batch",
                        "'--batch': '-5' is not a positive integer",
                        "log",
                        "append",
                        "t",
                        "--batch",
                        "-5"),
                usage(
                        "negative partition",
                        "'--partition': '-1' is not an integer >= 0",
                        "log",
                        "tail",
                        "t",
                        "--partition",
                        "-1"),
                usage("negative from", "'--from': '-2'", "log", "tail", "t", "--from", "-2"),
                usage("zero max", "'--max': '0'", "log", "tail", "t", "--max", "0"),
                usage("not a number", "'--max': 'ten'", "log", "tail", "t", "--max", "ten"),
                usage("negative kills", "'--kills': '-3'", "verify", "--kills", "-3"),
                usage(
                        "no kills",
                        "weir verify: --kills 0: weir verify proves exactly-once through crashes,"
                                + " so it needs at least one; use --kills 1 or more",
                        "verify",
                        "--kills",
                        "0"),
                usage(
                        "a file as the working directory",
                        "weir verify: --dir pom.xml is a file, not a directory; give a directory",
                        "verify",
                        "--dir",
                        "pom.xml"),
                usage("zero records", "'--records': '0'", "verify", "--records", "0"),
                usage("negative keys", "'--keys': '-1'", "verify", "--keys", "-1"),
                usage("negative rate", "'--rate': '-1'", "verify", "--rate", "-1"),
                usage("no keys", "'--max-keys': '0'", "inspect", ".", "--max-keys", "0"),
                usage(
                        "kafka without job",
                        "give --job",
                        "kafka",
                        "transactions",
                        "--checkpoints",
                        ".",
                        "--bootstrap-servers",
                        "localhost:1",
                        "--sink",
                        "s"));
    }

    private static org.junit.jupiter.params.provider.Arguments usage(
            String name, String message, String... args) {
        return org.junit.jupiter.params.provider.Arguments.of(
                org.junit.jupiter.api.Named.of(name, List.of(args)), message);
    }

    @Test
    void aFailureIsOneLineWithStatusOneAndTheStackTraceOnlyWithVerbose() {
        String log = dir.resolve("log").toString();
        Cli.Result plain = Cli.run("", "log", "--dir", log, "tail", "missing");
        assertThat(plain.status()).isEqualTo(1);
        assertThat(plain.err())
                .isEqualTo(
                        "weir log tail: log "
                                + log
                                + " has no topic 'missing'; create it first (weir log create)\n");

        Cli.Result verbose = Cli.run("", "log", "--dir", log, "tail", "missing", "--verbose");
        assertThat(verbose.status()).isEqualTo(1);
        assertThat(verbose.err().lines().toList()).first().isEqualTo(plain.err().strip());
        assertThat(verbose.err())
                .contains("java.lang.IllegalArgumentException")
                .contains("\tat dev.weir.");
    }

    /** A file system failure's message is often the path alone: the line says what happened. */
    @Test
    void aFileSystemFailureSaysWhatWentWrongNotOnlyThePath() {
        assertThat(
                        WeirCli.describe(
                                new java.io.UncheckedIOException(
                                        new java.nio.file.AccessDeniedException("/proc/nope"))))
                .isEqualTo("/proc/nope: permission denied");
        assertThat(
                        WeirCli.describe(
                                new java.nio.file.FileSystemException(
                                        "/a", "/b", "Read-only file system")))
                .isEqualTo("/a: Read-only file system (and /b)");
        assertThat(WeirCli.describe(new java.nio.file.NoSuchFileException("/x")))
                .isEqualTo("/x: no such file or directory");
        assertThat(
                        WeirCli.describe(
                                new IllegalStateException(
                                        "cannot lock /x",
                                        new java.nio.file.AccessDeniedException("/x"))))
                .isEqualTo("cannot lock /x");
    }

    @Test
    void aFailureWithoutAMessageNamesItsCauseOnOneLine() {
        assertThat(WeirCli.describe(new RuntimeException(new IllegalStateException("disk\nfull"))))
                .isEqualTo("java.lang.IllegalStateException: disk full");
        assertThat(WeirCli.describe(new RuntimeException((String) null)))
                .isEqualTo("java.lang.RuntimeException");
    }

    @ParameterizedTest
    @MethodSource("groups")
    void aCommandThatOnlyGroupsSubcommandsGivenNoneIsAUsageErrorShowingItsUsage(
            List<String> words) {
        Cli.Result result = Cli.run("", words.toArray(String[]::new));
        String name = "weir" + (words.isEmpty() ? "" : " " + String.join(" ", words));
        assertThat(result.status()).isEqualTo(2);
        assertThat(result.out()).isEmpty();
        assertThat(result.err().lines().toList())
                .first()
                .asString()
                .startsWith(name + ": missing subcommand; one of ");
        assertThat(result.err()).contains("Usage: " + name + " ");
    }

    static Stream<List<String>> groups() {
        return Stream.of(List.of(), List.of("log"), List.of("kafka"));
    }

    @Test
    void versionWorksOnSubcommandsToo() {
        Cli.Result result = Cli.run("", "log", "tail", "--version");
        assertThat(result.status()).isZero();
        assertThat(result.out()).isEqualTo("weir 0.1.0\n");
    }
}
