package dev.weir.cli;

import dev.weir.verify.Verifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code weir verify}: proves exactly-once of a source and sink pair under real crashes. */
@Command(
        name = "verify",
        description = {
            "Runs a keyed count-and-sum job in child JVMs and kills it with SIGKILL while source"
                    + " splits run, after some ended, after a restore of ended ones, at every"
                    + " named fault point and at random times, restarting it until its input is"
                    + " consumed, then starts the finished job once more (it must add nothing);"
                    + " checks the committed output for loss, duplicates, order, aggregates and"
                    + " leftovers; then proves the checker by seeding bugs it must catch.",
            "Example: weir verify --source log --sink file --kills 30 --seed 1",
            "         weir verify --runner flink --sink postgres --kills 30"
        })
public final class VerifyCommand implements Callable<Integer> {
    /** This command as picocli built it: usage errors name it in full ({@code weir ...}). */
    @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

    @Option(
            names = "--source",
            description =
                    "log, files, kafka or sequence (default ${DEFAULT-VALUE}: Weir's own"
                            + " replayable source, whose splits end at different times; kafka"
                            + " reads a topic laid out like the log; sequence is a generator"
                            + " whose splits end together).")
    String source = "log";

    @Option(
            names = "--sink",
            description = "file, log, postgres or kafka (default ${DEFAULT-VALUE}).")
    String sink = "file";

    @Option(
            names = "--kills",
            converter = Numbers.NonNegativeInt.class,
            description = "SIGKILLs in all (default ${DEFAULT-VALUE}).")
    int kills = 30;

    @Option(names = "--seed", description = "Reproduces a run (default ${DEFAULT-VALUE}).")
    long seed = 1;

    @Option(
            names = "--records",
            converter = Numbers.PositiveLong.class,
            description =
                    "Input records per round, at most 10000000; with the self-check at least 500,"
                            + " or 5000 for --workload windows, so that its seeded bugs' kills"
                            + " land while output is in flight (default ${DEFAULT-VALUE}).")
    long records = 50_000;

    @Option(
            names = "--keys",
            converter = Numbers.PositiveInt.class,
            description = "Distinct keys, at most 1000000 (default ${DEFAULT-VALUE}).")
    int keys = 100;

    @Option(
            names = "--rate",
            converter = Numbers.PositiveLong.class,
            description =
                    "Input records per second, so kills land mid-run; with the self-check at"
                            + " least 250, or 2500 for --workload windows (default"
                            + " ${DEFAULT-VALUE}).")
    long rate = 40_000;

    @Option(names = "--dir", description = "Working directory (default: a new temporary one).")
    Path dir;

    @Option(
            names = "--jdbc-url",
            description = "PostgreSQL for --sink postgres (default: start one from Maven).")
    String jdbcUrl;

    @Option(
            names = "--kafka-bootstrap",
            description =
                    "Kafka cluster for --source/--sink kafka (default: start a single broker as a"
                            + " child process, which some kills then restart).")
    String kafkaBootstrap;

    @Option(
            names = "--workload",
            description =
                    "count (per-key count and sum of every record) or windows (per-key counts in"
                            + " event-time tumbling windows over out-of-order input, late records"
                            + " aside, and in event-time session windows; --source log or"
                            + " sequence, --sink file or log) (default ${DEFAULT-VALUE}).")
    String workload = "count";

    @Option(
            names = "--runner",
            description =
                    "local (the job on Weir's runtime in child JVMs, which are killed; 'weir' is"
                            + " accepted too, as in earlier versions) or flink (the"
                            + " job on a standalone Flink cluster of child JVMs, one JobManager and"
                            + " two TaskManagers, whose TaskManagers are SIGKILLed at random times"
                            + " and started again; sources log, files or sequence, sinks file, log"
                            + " or postgres, no fault points or self-check: those are hooks of"
                            + " Weir's runtime) (default ${DEFAULT-VALUE}).")
    String runner = "local";

    @Option(
            names = "--no-self-check",
            description =
                    "Skip the seeded bugs (and allow an input too small for them: a warning line"
                            + " says so).")
    boolean noSelfCheck;

    @Override
    public Integer call() throws Exception {
        // The same names as demo's and the benchmarks' --runner; the verifier calls local "weir".
        String runner = this.runner.equals("local") ? "weir" : this.runner;
        // A fresh directory is created only once the options are known good (a usage error
        // leaves nothing behind).
        Path work =
                dir != null
                        ? dir
                        : Path.of(
                                System.getProperty("java.io.tmpdir"),
                                "weir-verify-" + java.util.UUID.randomUUID());
        if (kills < 1) {
            // The library takes 0 (its tests run the seeded bugs alone); a user's run without a
            // kill would pass while proving nothing about crashes.
            throw new picocli.CommandLine.ParameterException(
                    spec.commandLine(),
                    "--kills "
                            + kills
                            + ": weir verify proves exactly-once through crashes, so it needs at"
                            + " least one; use --kills 1 or more (30 by default)");
        }
        Verifier.Options options;
        try {
            options =
                    new Verifier.Options(
                            source,
                            sink,
                            kills,
                            seed,
                            records,
                            keys,
                            rate,
                            work,
                            jdbcUrl,
                            noSelfCheck || runner.equals("flink")
                                    ? List.of()
                                    : Verifier.seededBugNames(source, sink),
                            kafkaBootstrap,
                            workload,
                            runner);
        } catch (IllegalArgumentException e) {
            // A name, combination or count the verifier does not take: a usage error.
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
        }
        // Progress in planned runs of the job (each kill, then each seeded bug) on standard
        // error; the verifier's own lines go around the bar.
        if (Files.exists(work) && !Files.isDirectory(work)) {
            throw new picocli.CommandLine.ParameterException(
                    spec.commandLine(),
                    "--dir "
                            + work
                            + " is a file, not a directory; give a directory (it is created if"
                            + " missing) or leave --dir out for a new temporary one");
        }
        Files.createDirectories(work);
        ProgressReporter progress = ProgressReporter.onStandardError("verify", -1, "runs");
        Verifier.Report report;
        try {
            report =
                    new Verifier(options, progress.around(System.out))
                            .onProgress(progress::update)
                            .run();
        } finally {
            progress.finish();
        }
        return report.passed() ? 0 : 1;
    }
}
