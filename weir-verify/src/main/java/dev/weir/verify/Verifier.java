package dev.weir.verify;

import dev.weir.internal.checkpoint.StateFiles;
import dev.weir.internal.io.PowerCut;
import dev.weir.verify.Checker.Verdict;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The {@code weir verify} harness: runs {@link VerifyJob} in child JVMs and kills them with SIGKILL
 * — first at each named fault point (the k-th time it is reached, k seeded), then at random times —
 * restarting the job on the same directories until its input is consumed, round after round, until
 * the kills are spent. Each round's committed output goes through the {@link Checker}, with a
 * reader polling committed output during the round. Then the self-check: the same loop with each
 * seeded bug, each of which the checker must catch.
 */
public final class Verifier {
    /** Fault points, in the order the loop visits them; each fires the k-th time it is reached. */
    static final List<String> FAULT_POINTS =
            List.of(
                    "source.after-poll",
                    "snapshot.before-write",
                    "snapshot.mid-write",
                    "snapshot.before-fsync",
                    "barrier.aligned",
                    "checkpoint.all-acknowledged",
                    "manifest.before-rename",
                    "checkpoint.manifest-written",
                    "sink.before-precommit",
                    "sink.after-precommit",
                    "sink.checkpoint-complete-before-commit",
                    "sink.after-commit",
                    "restore.started",
                    "sink.recommit",
                    "sink.before-recover");

    /** Seeded bugs of the self-check, each with a kill that exposes it. */
    static final List<String[]> SEEDED_BUGS =
            List.of(
                    new String[] {"commit-before-complete", "sink.after-precommit:3"},
                    new String[] {"skip-abort", "sink.after-precommit:3"},
                    new String[] {"fallback-older", "sink.after-commit:4"},
                    new String[] {"rename-without-fsync", "sink.after-commit:4+cut"},
                    new String[] {"checkpoint-directory-without-fsync", "sink.after-commit:4+cut"});

    /**
     * What to verify.
     *
     * @param sink file, log or postgres
     * @param kills SIGKILLs in all (fault points first, then random times)
     * @param seed seeds the input's key order, the fault points' k and the kill times
     * @param records input records per round
     * @param keys distinct keys
     * @param rate input records per second (slows the job so kills land mid-run)
     * @param work working directory (emptied)
     * @param jdbcUrl PostgreSQL for {@code --sink postgres}; null starts one from Maven
     * @param selfCheck whether to run the seeded bugs too
     */
    public record Options(
            String sink,
            int kills,
            long seed,
            long records,
            int keys,
            long rate,
            Path work,
            String jdbcUrl,
            boolean selfCheck) {}

    /** The outcome. */
    public record Report(
            String sink,
            int kills,
            int faultPoints,
            int powerCuts,
            Verdict findings,
            int bugsCaught,
            int bugs,
            long recoveryP50,
            long recoveryP99,
            long seed) {
        /** True if nothing was found and every seeded bug was caught. */
        public boolean passed() {
            return findings.ok() && bugsCaught == bugs;
        }

        /** The report's last line. */
        public String line() {
            return String.format(
                    Locale.ROOT,
                    "verify: sink=%s kills=%d fault_points=%d power_cuts=%d records=%d lost=%d"
                            + " duplicated=%d reordered=%d dangling=%d seeded_bugs_caught=%d/%d"
                            + " recovery_ms_p50=%d recovery_ms_p99=%d seed=%d",
                    sink,
                    kills,
                    faultPoints,
                    powerCuts,
                    findings.records(),
                    findings.lost(),
                    findings.duplicated(),
                    findings.reordered(),
                    findings.dangling(),
                    bugsCaught,
                    bugs,
                    recoveryP50,
                    recoveryP99,
                    seed);
        }
    }

    /** Exit status of a JVM killed with SIGKILL. */
    static final int KILLED = 137;

    /** The power-cut journal of the running child, in the work directory. */
    static final String JOURNAL = "powercut.journal";

    private final Options options;
    private final PrintStream out;
    private final Random random;
    private String jdbcUrl;

    public Verifier(Options options, PrintStream out) {
        this.options = options;
        this.out = out;
        this.random = new Random(options.seed());
    }

    /** Runs the crash loop and the self-check; prints progress and the report to {@code out}. */
    public Report run() throws Exception {
        EmbeddedPostgres server = null;
        jdbcUrl = options.jdbcUrl();
        if (options.sink().equals("postgres") && jdbcUrl == null) {
            server =
                    EmbeddedPostgres.builder()
                            .setServerConfig("max_prepared_transactions", "20")
                            .start();
            jdbcUrl = server.getJdbcUrl("postgres", "postgres");
        }
        try {
            return loop();
        } finally {
            if (server != null) {
                server.close();
            }
        }
    }

    private Report loop() throws Exception {
        List<String> plan = new ArrayList<>();
        for (String point : FAULT_POINTS) {
            // A third of them also cut the power: what was not forced to disk is lost.
            plan.add(
                    point + ":" + (1 + random.nextInt(3)) + (random.nextInt(3) == 0 ? "+cut" : ""));
        }
        while (plan.size() < options.kills()) {
            // Every third random kill is a power cut: unsynced bytes and renames are lost too.
            plan.add(plan.size() % 3 == 0 ? "random+cut" : "random");
        }
        plan = plan.subList(0, Math.min(plan.size(), Math.max(options.kills(), 0)));
        List<Long> recoveries = new ArrayList<>();
        Set<String> fired = new LinkedHashSet<>();
        Verdict findings = Verdict.NONE;
        int kills = 0;
        int[] cuts = {0};
        int next = 0;
        int round = 0;
        while (next < plan.size() || round == 0) {
            round++;
            RoundResult result =
                    round(plan.subList(next, plan.size()), null, recoveries, fired, cuts);
            next += result.used();
            kills += result.kills();
            Verdict verdict = result.verdict();
            findings = findings.plus(verdict);
            out.printf(
                    Locale.ROOT,
                    "round %d: %d kills, %d records, %s%n",
                    round,
                    result.kills(),
                    verdict.records(),
                    verdict.ok() ? "exactly once" : "PROBLEMS " + verdict.problems());
        }
        int caught = 0;
        int bugs = options.selfCheck() ? SEEDED_BUGS.size() : 0;
        if (options.selfCheck()) {
            for (String[] bug : SEEDED_BUGS) {
                RoundResult result =
                        round(
                                List.of(bug[1]),
                                bug[0],
                                new ArrayList<>(),
                                new LinkedHashSet<>(),
                                new int[1]);
                boolean found = !result.verdict().ok();
                caught += found ? 1 : 0;
                out.printf(
                        Locale.ROOT,
                        "seeded bug %s (killed at %s): %s%n",
                        bug[0],
                        bug[1],
                        found ? "caught: " + result.verdict().problems().get(0) : "NOT CAUGHT");
            }
        }
        Collections.sort(recoveries);
        Report report =
                new Report(
                        options.sink(),
                        kills,
                        fired.size(),
                        cuts[0],
                        findings,
                        caught,
                        bugs,
                        percentile(recoveries, 50),
                        percentile(recoveries, 99),
                        options.seed());
        out.printf(
                Locale.ROOT,
                "fault points fired: %s%nwrong aggregates=%d, seen during the run and then gone=%d%n",
                fired,
                findings.wrong(),
                findings.vanished());
        out.println(report.line());
        return report;
    }

    private record RoundResult(int used, int kills, Verdict verdict) {}

    /**
     * One round: fresh directories, then child after child until one consumes the input, killing
     * them as {@code plan} says (a planned fault point that the run does not reach ends with the
     * input consumed, which ends the round).
     */
    private RoundResult round(
            List<String> plan, String bug, List<Long> recoveries, Set<String> fired, int[] cuts)
            throws Exception {
        Path work = options.work().resolve("round");
        StateFiles.deleteRecursively(work);
        Files.createDirectories(work);
        prepareSink(work);
        Set<String> seen = ConcurrentHashMap.newKeySet();
        Thread reader = startReader(work, seen);
        int used = 0;
        int kills = 0;
        long killedAt = 0;
        String failure = null;
        try {
            while (true) {
                String planned = used < plan.size() ? plan.get(used) : null;
                boolean cut = planned != null && planned.endsWith("+cut");
                String kill = cut ? planned.substring(0, planned.length() - 4) : planned;
                String fault = kill == null || kill.equals("random") ? null : kill;
                Files.deleteIfExists(work.resolve(JOURNAL));
                Process child = startChild(work, fault, bug);
                long[] restoredAt = {0};
                Thread output = drain(child, restoredAt);
                boolean exited;
                if ("random".equals(kill)) {
                    exited = child.waitFor(100 + random.nextInt(1500), TimeUnit.MILLISECONDS);
                    if (!exited) {
                        child.destroyForcibly(); // SIGKILL
                        child.waitFor();
                    }
                } else {
                    exited = child.waitFor(10, TimeUnit.MINUTES);
                    if (!exited) {
                        child.destroyForcibly();
                        throw new IllegalStateException("the verify job hung for 10 minutes");
                    }
                }
                output.join();
                if (killedAt > 0 && restoredAt[0] > 0) {
                    recoveries.add(restoredAt[0] - killedAt);
                }
                int status = child.exitValue();
                if (status == 0) {
                    if (kill != null) {
                        used++; // planned, but the run consumed its input first
                    }
                    break;
                }
                if (status != KILLED) {
                    // It failed on its own (a loud error is a finding too): end the round here.
                    failure =
                            "the job failed on its own (exit "
                                    + status
                                    + ") after "
                                    + kills
                                    + " kills; its output is above";
                    if (kill != null) {
                        used++;
                    }
                    break;
                }
                used++;
                kills++;
                if (cut) {
                    PowerCut.Damage damage = PowerCut.simulate(work.resolve(JOURNAL), random);
                    cuts[0]++;
                    out.println("  power cut: " + damage);
                }
                killedAt = System.currentTimeMillis();
                if (fault != null) {
                    fired.add(fault.substring(0, fault.lastIndexOf(':')));
                }
            }
        } finally {
            reader.interrupt();
            reader.join();
        }
        List<String> committed = committed(work);
        Verdict verdict =
                Checker.check(
                        committed,
                        options.records(),
                        options.keys(),
                        options.seed(),
                        pending(work),
                        seen);
        if (failure != null) {
            verdict = verdict.withFailure(failure);
        }
        return new RoundResult(used, kills, verdict);
    }

    private void prepareSink(Path work) throws Exception {
        switch (options.sink()) {
            case "log" -> {
                try (dev.weir.api.log.DurableLog log =
                        dev.weir.api.log.DurableLog.open(
                                work.resolve("log"), dev.weir.api.log.LogOptions.defaults())) {
                    log.createTopic("updates", 2);
                }
            }
            case "postgres" -> {
                try (Connection connection = CommittedOutput.connect(jdbcUrl);
                        Statement statement = connection.createStatement()) {
                    for (String gid : CommittedOutput.postgresPending(jdbcUrl)) {
                        statement.execute("ROLLBACK PREPARED '" + gid + "'");
                    }
                    statement.execute("DROP TABLE IF EXISTS " + VerifyJob.TABLE);
                    statement.execute(
                            "CREATE TABLE "
                                    + VerifyJob.TABLE
                                    + " (id bigserial PRIMARY KEY, k int, seq bigint,"
                                    + " count bigint, sum bigint)");
                }
            }
            default -> {}
        }
    }

    private List<String> committed(Path work) throws Exception {
        return switch (options.sink()) {
            case "file" -> CommittedOutput.fileLines(work.resolve("out"));
            case "log" -> CommittedOutput.logLines(work.resolve("log"));
            default -> CommittedOutput.postgresLines(jdbcUrl);
        };
    }

    private List<String> pending(Path work) throws Exception {
        return switch (options.sink()) {
            case "file" -> CommittedOutput.filePending(work.resolve("out"));
            case "log" -> CommittedOutput.logPending(work.resolve("log"));
            default -> CommittedOutput.postgresPending(jdbcUrl);
        };
    }

    /**
     * Polls committed output while the round runs and remembers every line seen. Not for the log
     * sink: opening the log repairs a torn tail, which a reader must not do under a live writer.
     */
    private Thread startReader(Path work, Set<String> seen) {
        Thread thread =
                new Thread(
                        () -> {
                            while (!Thread.currentThread().isInterrupted()) {
                                try {
                                    if (options.sink().equals("file")) {
                                        seen.addAll(CommittedOutput.fileLines(work.resolve("out")));
                                    } else if (options.sink().equals("postgres")) {
                                        seen.addAll(CommittedOutput.postgresLines(jdbcUrl));
                                    }
                                    Thread.sleep(100);
                                } catch (InterruptedException e) {
                                    return;
                                } catch (Exception e) {
                                    // the server or files are mid-change: read again
                                }
                            }
                        },
                        "verify-reader");
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    private Process startChild(Path work, String fault, String bug) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx512m");
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=error");
        if (fault != null) {
            command.add("-Dweir.fault=" + fault);
        }
        command.add("-Dweir.powercut=" + work.resolve(JOURNAL));
        if (bug != null) {
            command.add("-Dweir.bug=" + bug);
        }
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(VerifyJob.class.getName());
        command.add(options.sink());
        command.add(work.toString());
        command.add(Long.toString(options.records()));
        command.add(Integer.toString(options.keys()));
        command.add(Long.toString(options.seed()));
        command.add(Long.toString(options.rate()));
        if (jdbcUrl != null) {
            command.add(jdbcUrl);
        }
        return new ProcessBuilder(command).redirectErrorStream(true).start();
    }

    /** Reads the child's output; notes when it restored. */
    private Thread drain(Process child, long[] restoredAt) {
        Thread thread =
                new Thread(
                        () -> {
                            try (BufferedReader reader =
                                    new BufferedReader(
                                            new InputStreamReader(
                                                    child.getInputStream(),
                                                    StandardCharsets.UTF_8))) {
                                for (String line; (line = reader.readLine()) != null; ) {
                                    if (line.startsWith("RESTORED ") && restoredAt[0] == 0) {
                                        restoredAt[0] = Long.parseLong(line.split(" ")[2]);
                                    } else if (!line.equals("DONE") && !line.isBlank()) {
                                        out.println("  child: " + line);
                                    }
                                }
                            } catch (IOException e) {
                                // the child was killed
                            }
                        },
                        "verify-child-output");
        thread.start();
        return thread;
    }

    static long percentile(List<Long> sorted, int percent) {
        if (sorted.isEmpty()) {
            return 0;
        }
        int index = (int) Math.ceil(percent / 100.0 * sorted.size()) - 1;
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, index)));
    }
}
