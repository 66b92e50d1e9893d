package dev.weir.verify;

import dev.weir.api.testing.FaultPoint;
import dev.weir.api.testing.PowerCuts;
import dev.weir.verify.Checker.Verdict;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The {@code weir verify} harness: writes the chosen source's input, runs {@link VerifyJob} in
 * child JVMs and kills them with SIGKILL — at each named fault point (the k-th time it is reached,
 * k seeded), and for sources whose splits end at different times also once some splits ended and in
 * a run that restored ended splits, then at random times — restarting the job on the same
 * directories until its input is consumed, round after round, until the kills are spent. Each round
 * ends by starting the finished job once more on its directories, which must add nothing. Each
 * round's committed output goes through the {@link Checker}, with a reader polling committed output
 * during the round. Then the self-check: the same loop with each seeded bug, each of which the
 * checker must catch.
 */
public final class Verifier {
    /**
     * Fault points, in the order the loop visits them (every point Weir declares); each fires the
     * k-th time it is reached.
     */
    static final List<String> FAULT_POINTS =
            Arrays.stream(FaultPoint.values()).map(FaultPoint::id).toList();

    /** A seeded bug of the self-check ({@code -Dweir.bug=<name>}) and the kill that exposes it. */
    record SeededBug(String name, String kill) {
        SeededBug(dev.weir.api.testing.SeededBug bug, String kill) {
            this(bug.id(), kill);
        }
    }

    /** Seeded bugs of the self-check for every source. */
    static final List<SeededBug> SEEDED_BUGS =
            List.of(
                    new SeededBug(
                            dev.weir.api.testing.SeededBug.COMMIT_BEFORE_COMPLETE,
                            "sink.after-precommit:6"),
                    new SeededBug(
                            dev.weir.api.testing.SeededBug.SKIP_ABORT, "sink.after-precommit:5"),
                    new SeededBug(
                            dev.weir.api.testing.SeededBug.FALLBACK_OLDER, "sink.after-commit:4"),
                    new SeededBug(
                            dev.weir.api.testing.SeededBug.RENAME_WITHOUT_FSYNC,
                            "sink.after-commit:4+cut"),
                    new SeededBug(
                            dev.weir.api.testing.SeededBug.CHECKPOINT_DIRECTORY_WITHOUT_FSYNC,
                            "sink.after-commit:4+cut"));

    /**
     * The seeded bug of sources whose splits end at different times: a restored source reads again
     * the splits that had ended. Killed once a checkpoint holds an ended split, the restored run
     * re-reads it (and the finished job started again re-reads every split).
     */
    static final SeededBug REREAD_ENDED_SPLITS =
            new SeededBug(dev.weir.api.testing.SeededBug.REREAD_ENDED_SPLITS, "ended");

    /** The sinks. */
    static final List<String> SINKS = List.of("file", "log", "postgres", "kafka");

    /**
     * The seeded bugs of the self-check for {@code source} and {@code sink}. Not {@code skip-abort}
     * for the Kafka sink: its producers take over the transactional ids of the previous run when
     * they start ({@code initTransactions} fences them and aborts their open transactions), so a
     * core that skips {@code recoverOwned} leaves nothing open that the checker could see, except
     * when the previous run had more producers than the next one opens.
     */
    static List<SeededBug> seededBugs(String source, String sink) {
        List<SeededBug> bugs = new ArrayList<>(SEEDED_BUGS);
        if (sink.equals("kafka")) {
            bugs.removeIf(bug -> bug.name().equals("skip-abort"));
        }
        if (VerifyInput.splitsEndApart(source)) {
            bugs.add(REREAD_ENDED_SPLITS);
        }
        return bugs;
    }

    /** The names of every seeded bug of the self-check for {@code source} and {@code sink}. */
    public static List<String> seededBugNames(String source, String sink) {
        return seededBugs(source, sink).stream().map(SeededBug::name).toList();
    }

    /**
     * What to verify.
     *
     * @param source sequence, log or files
     * @param sink file, log or postgres
     * @param kills SIGKILLs in all (fault points first, then random times)
     * @param seed seeds the input's key order, the fault points' k and the kill times
     * @param records input records per round
     * @param keys distinct keys
     * @param rate input records per second (slows the job so kills land mid-run)
     * @param work working directory (emptied)
     * @param jdbcUrl PostgreSQL for {@code --sink postgres}; null starts one from Maven
     * @param seededBugs the seeded bugs of the self-check, by name ({@link #seededBugNames} for all
     *     of the source's; empty for no self-check)
     * @param kafkaBootstrap a Kafka cluster for a Kafka source or sink; null starts a broker as a
     *     child process (and then some kills restart it)
     * @param workload {@code count} (per-key count and sum of every record) or {@code windows}
     *     (per-key counts in event-time windows, {@link WindowWorkload})
     * @param runner {@code weir} (the job on Weir's runtime in the killed child JVM) or {@code
     *     flink} (the job on a standalone Flink cluster of child JVMs, {@link FlinkVerify}, whose
     *     TaskManagers are the ones killed)
     */
    public record Options(
            String source,
            String sink,
            int kills,
            long seed,
            long records,
            int keys,
            long rate,
            Path work,
            String jdbcUrl,
            List<String> seededBugs,
            String kafkaBootstrap,
            String workload,
            String runner) {
        /** Validates the names and the record and key counts, naming what to change. */
        public Options {
            FlinkVerify.check(runner, source, sink, workload, seededBugs);
            VerifyInput.check(source, keys);
            VerifyInput.checkSizes(records, keys);
            if (!workload.equals("count") && !workload.equals("windows")) {
                throw new IllegalArgumentException(
                        "unknown workload '" + workload + "'; use count or windows");
            }
            if (workload.equals("windows") && !(sink.equals("file") || sink.equals("log"))) {
                throw new IllegalArgumentException(
                        "the windows workload writes through --sink file or log, not " + sink);
            }
            if (workload.equals("windows")
                    && !(source.equals("log") || source.equals("sequence"))) {
                // Its sessions are deterministic only if each source subtask reads one split in
                // record order (WindowWorkload): files reads a split's files one after another,
                // and kafka reads several partitions in one subtask.
                throw new IllegalArgumentException(
                        "the windows workload reads --source log or sequence (a subtask per split,"
                                + " in record order), not "
                                + source);
            }
            if (!SINKS.contains(sink)) {
                throw new IllegalArgumentException(
                        "unknown sink '" + sink + "'; use file, log, postgres or kafka");
            }
            seededBugs = List.copyOf(seededBugs);
            if (!seededBugs.isEmpty()) {
                String small = selfCheckTooSmall(workload, records, rate);
                if (small != null) {
                    throw new IllegalArgumentException(
                            small + "; or skip the self-check with --no-self-check");
                }
            }
            for (String bug : seededBugs) {
                if (!seededBugNames(source, sink).contains(bug)) {
                    throw new IllegalArgumentException(
                            "no seeded bug '"
                                    + bug
                                    + "' for source "
                                    + source
                                    + "; use "
                                    + seededBugNames(source, sink));
                }
            }
        }

        /** Options of a job on Weir's runtime. */
        public Options(
                String source,
                String sink,
                int kills,
                long seed,
                long records,
                int keys,
                long rate,
                Path work,
                String jdbcUrl,
                List<String> seededBugs,
                String kafkaBootstrap,
                String workload) {
            this(
                    source,
                    sink,
                    kills,
                    seed,
                    records,
                    keys,
                    rate,
                    work,
                    jdbcUrl,
                    seededBugs,
                    kafkaBootstrap,
                    workload,
                    "weir");
        }

        /** Options of the count workload. */
        public Options(
                String source,
                String sink,
                int kills,
                long seed,
                long records,
                int keys,
                long rate,
                Path work,
                String jdbcUrl,
                List<String> seededBugs,
                String kafkaBootstrap) {
            this(
                    source,
                    sink,
                    kills,
                    seed,
                    records,
                    keys,
                    rate,
                    work,
                    jdbcUrl,
                    seededBugs,
                    kafkaBootstrap,
                    "count");
        }

        /** Options without a Kafka cluster of the user's (a Kafka pair starts its own broker). */
        public Options(
                String source,
                String sink,
                int kills,
                long seed,
                long records,
                int keys,
                long rate,
                Path work,
                String jdbcUrl,
                List<String> seededBugs) {
            this(source, sink, kills, seed, records, keys, rate, work, jdbcUrl, seededBugs, null);
        }

        /** True if the source or the sink is Kafka. */
        boolean kafka() {
            return source.equals("kafka") || sink.equals("kafka");
        }

        /** True if the job runs on a Flink cluster. */
        boolean flink() {
            return runner.equals("flink");
        }
    }

    /**
     * The fewest input records per round for which the self-check of {@code workload} means
     * something. A seeded bug's round reads them at {@link #seededBugRate}, {@code min(rate,
     * records / 2)} per second, so they last at least 2 s, some 40 checkpoints of 50 ms; the kills
     * of {@code commit-before-complete} and {@code skip-abort} (the 6th and the 5th pre-commit of
     * the JVM that holds output, as empty ones do not count under these bugs: with two sink
     * subtasks, the 3rd checkpoint with output) and of {@code fallback-older} and the power-cut
     * bugs (the 4th commit of the JVM of output of a checkpoint that is then the newest complete
     * one, as others do not count under these bugs: the 2nd such checkpoint) expose their bug only
     * if that checkpoint's transactions hold output. The count workload commits a line per record:
     * at 100 records (2.5 a checkpoint) one or both of the first two bugs went uncaught (log
     * source, 100 keys, seeds 1 and 2), from 200 up none did; its minimum, 500, gives each
     * checkpoint about 12 lines. The windows workload commits, early in a run, only its late
     * records (some of them: a jitter of up to 150 ms against a watermark 50 ms behind), as its
     * windows and sessions fire only once the watermark passes them: some seeds missed a bug at
     * every size tried from 200 to 3000 records (from 1000 up with the log sink only, mostly the
     * bugs killed at the 4th commit), none at 5000, its minimum.
     */
    static long selfCheckMinimum(String workload) {
        return workload.equals("windows") ? 5_000 : 500;
    }

    /**
     * Why a self-check over {@code records} at {@code rate} could not mean anything (too few
     * records, or too slow a pace, for its kills to land while output is in flight); null if it
     * can.
     */
    static String selfCheckTooSmall(String workload, long records, long rate) {
        long least = selfCheckMinimum(workload);
        String why =
                ": a seeded bug's round reads its input in about 2 s (40 checkpoints of 50 ms),"
                        + " and its kill, in the 2nd or 3rd checkpoint, exposes the bug only if"
                        + " that checkpoint's transactions hold output";
        if (records < least) {
            return "--records must be at least "
                    + least
                    + " for the self-check of the "
                    + workload
                    + " workload, not "
                    + records
                    + why;
        }
        if (rate < least / 2) {
            return "--rate must be at least "
                    + least / 2
                    + " for the self-check of the "
                    + workload
                    + " workload, not "
                    + rate
                    + why;
        }
        return null;
    }

    /**
     * The warning line of a run without a self-check whose input is too small for one to mean
     * anything (its kills then mostly land on checkpoints that commit nothing); null if none.
     */
    static String smallInputWarning(Options options) {
        if (!options.seededBugs().isEmpty()) {
            return null; // refused up front by Options instead
        }
        String small = selfCheckTooSmall(options.workload(), options.records(), options.rate());
        return small == null
                ? null
                : "warning: no self-check, and this input is too small for one to mean"
                        + " anything ("
                        + small
                        + "); this run's kills, too, land mostly on checkpoints that commit"
                        + " little or nothing";
    }

    /**
     * The outcome.
     *
     * @param splitStates where the source's splits were when each kill landed, and how many
     *     finished jobs were started again
     * @param workload {@code count} or {@code windows}: which summary line {@link #line} prints
     */
    public record Report(
            String source,
            String sink,
            int kills,
            int faultPoints,
            int powerCuts,
            SplitStates.Counts splitStates,
            Verdict findings,
            int bugsCaught,
            int bugs,
            long recoveryP50,
            long recoveryP99,
            long seed,
            int brokerRestarts,
            String workload) {
        /** True if nothing was found and every seeded bug was caught. */
        public boolean passed() {
            return findings.ok() && bugsCaught == bugs;
        }

        /**
         * The report's last line. For the count workload: records, then lost, duplicated, reordered
         * and dangling. For the windows workload: records, the tumbling windows and the sessions
         * checked, then lost, duplicated, wrong and dangling; no reordered, which that checker does
         * not count (it compares each key's windows and sessions as sets: their commit order is not
         * defined), and wrong instead, its main finding (a window or session with too many records,
         * sessions that should have merged, a record late for its session).
         */
        public String line() {
            String found =
                    workload.equals("windows")
                            ? String.format(
                                    Locale.ROOT,
                                    "records=%d windows=%d sessions=%d lost=%d duplicated=%d"
                                            + " wrong=%d dangling=%d",
                                    findings.records(),
                                    findings.windows(),
                                    findings.sessions(),
                                    findings.lost(),
                                    findings.duplicated(),
                                    findings.wrong(),
                                    findings.dangling())
                            : String.format(
                                    Locale.ROOT,
                                    "records=%d lost=%d duplicated=%d reordered=%d dangling=%d",
                                    findings.records(),
                                    findings.lost(),
                                    findings.duplicated(),
                                    findings.reordered(),
                                    findings.dangling());
            return String.format(
                    Locale.ROOT,
                    "verify: source=%s sink=%s kills=%d fault_points=%d power_cuts=%d %s"
                            + " seeded_bugs_caught=%d/%d recovery_ms_p50=%d recovery_ms_p99=%d"
                            + "%s seed=%d",
                    source,
                    sink,
                    kills,
                    faultPoints,
                    powerCuts,
                    found,
                    bugsCaught,
                    bugs,
                    recoveryP50,
                    recoveryP99,
                    brokerRestarts > 0 ? " broker_restarts=" + brokerRestarts : "",
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
    private int splitCount;
    private dev.weir.kafka.testkit.BrokerProcess broker;
    private String kafkaBootstrap;
    private String kafkaTopic;
    private int kafkaTopics;
    private FlinkVerify flink;
    private int flinkRoundsWithoutKill;

    public Verifier(Options options, PrintStream out) {
        this.options = options;
        this.out = out;
        this.random = new Random(options.seed());
    }

    /** Hears how far a run is; see {@link #onProgress}. */
    @FunctionalInterface
    public interface ProgressListener {
        /**
         * {@code done} of {@code total} planned runs are over: each planned kill, then each seeded
         * bug. Called on the thread that called {@link #run}, after each child JVM ends.
         */
        void progress(long done, long total);
    }

    private ProgressListener progress = (done, total) -> {};

    /** Where {@link #run} reports its progress (default: nowhere). Returns this. */
    public Verifier onProgress(ProgressListener listener) {
        this.progress = java.util.Objects.requireNonNull(listener, "listener");
        return this;
    }

    /** Runs done before the current round, for {@link #progress}. */
    private long progressBase;

    /** Runs planned in all (kills, then seeded bugs), for {@link #progress}. */
    private long progressTotal;

    /** Runs the crash loop and the self-check; prints progress and the report to {@code out}. */
    public Report run() throws Exception {
        Path input = options.work().resolve("input");
        deleteRecursively(input);
        kafkaBootstrap = options.kafkaBootstrap();
        if (options.kafka() && kafkaBootstrap == null) {
            Path brokerDir = options.work().resolve("broker");
            deleteRecursively(brokerDir);
            broker =
                    dev.weir.kafka.testkit.BrokerProcess.start(
                            brokerDir,
                            KafkaVerify.brokerClassPath(),
                            java.util.Map.of(
                                    "transaction.abort.timed.out.transaction.cleanup.interval.ms",
                                    "1000"));
            kafkaBootstrap = broker.bootstrapServers();
            out.println("kafka broker: " + kafkaBootstrap + " (pid " + broker.pid() + ")");
        }
        try {
            if (options.flink()) {
                flink = FlinkVerify.start(options.work().resolve("flink-cluster"), random, out);
            }
            return runWithCluster(input);
        } finally {
            if (flink != null) {
                flink.close();
            }
            if (broker != null) {
                broker.close();
            }
        }
    }

    private Report runWithCluster(Path input) throws Exception {
        String warning = smallInputWarning(options);
        if (warning != null) {
            out.println(warning);
        }
        VerifyInput.write(
                options.source(), input, options.records(), options.keys(), options.seed());
        if (options.source().equals("kafka")) {
            KafkaVerify.writeInput(
                    kafkaBootstrap, options.records(), options.keys(), options.seed());
        }
        splitCount =
                VerifyInput.splitCount(options.source(), input, options.records(), options.keys());
        EmbeddedPostgresServer server = null;
        jdbcUrl = options.jdbcUrl();
        if (options.sink().equals("postgres") && jdbcUrl == null) {
            server = EmbeddedPostgresServer.start(20);
            jdbcUrl = server.jdbcUrl();
        }
        try {
            return loop();
        } finally {
            if (server != null) {
                server.close();
            }
        }
    }

    /**
     * The kills, in the order they are spent: each fault point (a third of them with a power cut),
     * the first of which lands while every split runs; for sources whose splits end apart, right
     * after it, once some splits ended and then in the run that restored them; then random times,
     * every third with a power cut.
     */
    private List<String> plan() {
        List<String> plan = new ArrayList<>();
        if (options.flink()) {
            // Fault points and split states are hooks of Weir's runtime: on Flink, TaskManagers
            // are killed at random times.
            return java.util.Collections.nCopies(Math.max(options.kills(), 0), "random");
        }
        for (String point : FAULT_POINTS) {
            plan.add(
                    point + ":" + (1 + random.nextInt(3)) + (random.nextInt(3) == 0 ? "+cut" : ""));
        }
        if (VerifyInput.splitsEndApart(options.source())) {
            plan.addAll(1, List.of("ended", "restored"));
        }
        if (broker != null) {
            plan.add(Math.min(plan.size(), 3), "broker");
        }
        while (plan.size() < options.kills()) {
            if (broker != null && plan.size() % 4 == 1) {
                plan.add("broker"); // SIGKILL the broker and restart it under the running job
            } else {
                plan.add(plan.size() % 3 == 0 ? "random+cut" : "random");
            }
        }
        return plan.subList(0, Math.min(plan.size(), Math.max(options.kills(), 0)));
    }

    private Report loop() throws Exception {
        List<String> plan = plan();
        long bugCount =
                seededBugs(options.source(), options.sink()).stream()
                        .filter(bug -> options.seededBugs().contains(bug.name()))
                        .count();
        progressTotal = plan.size() + bugCount;
        progress.progress(0, progressTotal);
        List<Long> recoveries = new ArrayList<>();
        Set<String> fired = new LinkedHashSet<>();
        Verdict findings = Verdict.NONE;
        Tally tally = new Tally(recoveries, fired);
        int next = 0;
        int round = 0;
        while (next < plan.size() || round == 0) {
            round++;
            int killsBefore = tally.kills;
            progressBase = next;
            RoundResult result = round(plan.subList(next, plan.size()), null, tally);
            next += result.used();
            Verdict verdict = result.verdict();
            findings = findings.plus(verdict);
            out.printf(
                    Locale.ROOT,
                    "round %d: %d kills, %d records, %s%n",
                    round,
                    tally.kills - killsBefore,
                    verdict.records(),
                    verdict.ok() ? "exactly once" : "PROBLEMS " + verdict.problems());
        }
        List<SeededBug> bugs = new ArrayList<>();
        for (SeededBug bug : seededBugs(options.source(), options.sink())) {
            if (options.seededBugs().contains(bug.name())) {
                bugs.add(bug);
            }
        }
        int caught = 0;
        for (int index = 0; index < bugs.size(); index++) {
            SeededBug bug = bugs.get(index);
            progressBase = plan.size() + index;
            RoundResult result =
                    round(
                            List.of(bug.kill()),
                            bug.name(),
                            new Tally(new ArrayList<>(), new LinkedHashSet<>()));
            boolean found = !result.verdict().ok();
            caught += found ? 1 : 0;
            out.printf(
                    Locale.ROOT,
                    "seeded bug %s (killed at %s): %s%n",
                    bug.name(),
                    bug.kill(),
                    found ? "caught: " + result.verdict().problems().get(0) : "NOT CAUGHT");
        }
        Collections.sort(recoveries);
        Report report =
                new Report(
                        options.source(),
                        options.sink()
                                + (options.workload().equals("windows") ? " workload=windows" : "")
                                + (options.flink() ? " runner=flink" : ""),
                        tally.kills,
                        fired.size(),
                        tally.cuts,
                        tally.states,
                        findings,
                        caught,
                        bugs.size(),
                        percentile(recoveries, 50),
                        percentile(recoveries, 99),
                        options.seed(),
                        tally.brokerRestarts,
                        options.workload());
        if (options.flink()) {
            out.printf(
                    Locale.ROOT,
                    "TaskManagers killed: %d; wrong aggregates=%d, seen during the run and then"
                            + " gone=%d%n",
                    tally.kills,
                    findings.wrong(),
                    findings.vanished());
        } else {
            out.printf(
                    Locale.ROOT,
                    "fault points fired: %s%nwrong aggregates=%d, seen during the run and then"
                            + " gone=%d%nkills by split state: running=%d ended=%d restored=%d;"
                            + " finished jobs started again: %d%n",
                    fired,
                    findings.wrong(),
                    findings.vanished(),
                    tally.states.running(),
                    tally.states.ended(),
                    tally.states.restored(),
                    tally.states.reruns());
        }
        if (tally.kills < Math.max(options.kills(), 0)) {
            out.printf(
                    Locale.ROOT,
                    "kills asked for: %d, landed: %d (a planned kill whose moment a run does not"
                            + " reach, such as a random time after the input ended, ends the"
                            + " round instead; more --records or a lower --rate give them room)%n",
                    options.kills(),
                    tally.kills);
        }
        if (recoveries.isEmpty()) {
            out.println(
                    "no recovery was timed in this run, so recovery_ms_p50 and recovery_ms_p99"
                            + " below read 0");
        }
        if (!options.flink()) {
            List<String> missed = new ArrayList<>();
            if (tally.cuts == 0) {
                missed.add("no kill was a power cut");
            }
            if (tally.states.running() == 0) {
                missed.add("no kill landed while splits ran");
            }
            if (VerifyInput.splitsEndApart(options.source()) && tally.states.ended() == 0) {
                missed.add("none after some splits ended");
            }
            if (VerifyInput.splitsEndApart(options.source()) && tally.states.restored() == 0) {
                missed.add("none after a restore of ended splits");
            }
            if (!missed.isEmpty()) {
                out.println(
                        "not exercised by this run: "
                                + String.join("; ", missed)
                                + " (a proof covers only what it exercises: more --kills, such as"
                                + " the default 30, reach them)");
            }
        }
        out.println(report.line());
        return report;
    }

    /** What the kills of a loop did, summed over its rounds. */
    private static final class Tally {
        final List<Long> recoveries;
        final Set<String> fired;
        int kills;
        int cuts;
        int brokerRestarts;
        SplitStates.Counts states = SplitStates.Counts.NONE;

        Tally(List<Long> recoveries, Set<String> fired) {
            this.recoveries = recoveries;
            this.fired = fired;
        }
    }

    private record RoundResult(int used, Verdict verdict) {}

    /** One planned kill, taken apart. */
    private record Kill(String spec, String at, boolean cut) {
        static Kill of(String spec) {
            if (spec == null) {
                return null;
            }
            boolean cut = spec.endsWith("+cut");
            return new Kill(spec, cut ? spec.substring(0, spec.length() - 4) : spec, cut);
        }

        boolean random() {
            return at.equals("random");
        }

        /** SIGKILL of the Kafka broker (restarted at once), not of the job. */
        boolean broker() {
            return at.equals("broker");
        }

        /** A split state ("ended", "restored"), or null. */
        String splitState() {
            return at.equals("ended") || at.equals("restored") ? at : null;
        }

        /** A fault point spec ({@code name:k}), or null. */
        String fault() {
            return random() || broker() || splitState() != null ? null : at;
        }
    }

    /**
     * One round: fresh directories, then child after child until one consumes the input, killing
     * them as {@code plan} says (a planned kill whose moment the run does not reach ends with the
     * input consumed, which ends the round); then the finished job once more, which must add
     * nothing.
     */
    private RoundResult round(List<String> plan, String bug, Tally tally) throws Exception {
        Path work = options.work().resolve("round");
        deleteRecursively(work);
        Files.createDirectories(work);
        prepareSink(work);
        if (options.flink()) {
            return flinkRound(work, plan.size(), tally);
        }
        Set<String> seen = ConcurrentHashMap.newKeySet();
        java.util.concurrent.atomic.AtomicBoolean reading =
                new java.util.concurrent.atomic.AtomicBoolean(true);
        Thread reader = startReader(work, seen, reading);
        SplitStates splits = new SplitStates();
        int used = 0;
        int kills = 0;
        long killedAt = 0;
        String failure = null;
        try {
            while (true) {
                Kill kill = Kill.of(used < plan.size() ? plan.get(used) : null);
                Files.deleteIfExists(work.resolve(JOURNAL));
                Process child = startChild(work, kill == null ? null : kill.fault(), bug);
                ChildWatch watch =
                        new ChildWatch(
                                child,
                                splits,
                                kill == null ? null : kill.splitState(),
                                splitCount,
                                out);
                boolean brokerKilled = awaitOrKill(child, watch, kill);
                watch.join();
                // This child spent the round's kill number used (or consumed the input).
                progress.progress(
                        Math.min(progressBase + used + 1, progressBase + plan.size()),
                        progressTotal);
                if (brokerKilled) {
                    tally.kills++;
                    tally.brokerRestarts++;
                }
                if (killedAt > 0 && watch.restoredAtMillis() > 0) {
                    tally.recoveries.add(watch.restoredAtMillis() - killedAt);
                }
                int status = child.exitValue();
                if (status == 0) {
                    if (kill != null) {
                        used++; // planned, but the run consumed its input first
                    }
                    failure = rerun(work, bug, tally);
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
                tally.kills++;
                tally.states = tally.states.plus(watch.state());
                if (kill != null && kill.cut()) {
                    PowerCuts.Damage damage = PowerCuts.simulate(work.resolve(JOURNAL), random);
                    tally.cuts++;
                    out.println("  power cut: " + damage);
                }
                killedAt = System.currentTimeMillis();
                if (kill != null && kill.fault() != null) {
                    tally.fired.add(kill.fault().substring(0, kill.fault().lastIndexOf(':')));
                }
            }
        } finally {
            // A Kafka client interrupted inside a call logs an error: let a read finish first.
            reading.set(false);
            reader.join(10_000);
            reader.interrupt();
            reader.join();
        }
        List<String> committed = committed(work);
        Verdict verdict =
                options.workload().equals("windows")
                        ? WindowWorkload.check(
                                committed,
                                options.records(),
                                options.keys(),
                                options.seed(),
                                pending(work),
                                seen)
                        : Checker.check(
                                committed,
                                options.records(),
                                options.keys(),
                                options.seed(),
                                pending(work),
                                seen);
        if (failure != null) {
            verdict = verdict.withFailure(failure);
        }
        return new RoundResult(used, verdict);
    }

    /**
     * One round on the Flink cluster: one client child submits the job and waits for it; meanwhile
     * a TaskManager that runs tasks is SIGKILLed (and started again) at a random time after the job
     * runs, up to {@code planned} times, each once the job runs again after the previous kill. The
     * third round in a row that ends before its first planned kill spends it, so rounds make
     * progress. No re-run of the finished job: Flink deletes a finished job's checkpoints, so a new
     * run would start from the beginning.
     */
    private RoundResult flinkRound(Path work, int planned, Tally tally) throws Exception {
        Set<String> seen = ConcurrentHashMap.newKeySet();
        java.util.concurrent.atomic.AtomicBoolean reading =
                new java.util.concurrent.atomic.AtomicBoolean(true);
        Thread reader = startReader(work, seen, reading);
        int used = 0;
        String failure = null;
        Process child = startChild(work, null, null);
        ChildWatch watch = new ChildWatch(child, new SplitStates(), null, splitCount, out);
        try {
            long killedAt = 0;
            while (used < planned) {
                if (!flink.awaitRunning(child, Duration.ofMinutes(5))) {
                    break; // the client exited: the job ended (or failed)
                }
                if (killedAt > 0) {
                    tally.recoveries.add(System.currentTimeMillis() - killedAt);
                    killedAt = 0;
                }
                if (child.waitFor(randomKillDelayMs(), TimeUnit.MILLISECONDS)) {
                    break;
                }
                long at = flink.killTaskManager(child);
                if (at == 0) {
                    break; // the job ended while the kill was due
                }
                killedAt = at;
                used++;
                tally.kills++;
            }
            if (killedAt > 0 && flink.awaitRunning(child, Duration.ofMinutes(5))) {
                tally.recoveries.add(System.currentTimeMillis() - killedAt);
            }
            if (!child.waitFor(10, TimeUnit.MINUTES)) {
                child.destroyForcibly();
                throw new IllegalStateException("the verify job hung for 10 minutes");
            }
            watch.join();
            if (child.exitValue() != 0) {
                failure =
                        "the Flink job failed (client exit "
                                + child.exitValue()
                                + ") after "
                                + used
                                + " kills; its output is above";
            }
            flinkRoundsWithoutKill = used == 0 ? flinkRoundsWithoutKill + 1 : 0;
            if (flinkRoundsWithoutKill == 3 && planned > 0) {
                // Three jobs in a row ended before their kill: spend it, so rounds make progress.
                used = 1;
                flinkRoundsWithoutKill = 0;
            }
        } finally {
            if (child.isAlive()) {
                child.destroyForcibly();
                child.waitFor();
            }
            reading.set(false);
            reader.join(10_000);
            reader.interrupt();
            reader.join();
        }
        Verdict verdict =
                Checker.check(
                        committed(work),
                        options.records(),
                        options.keys(),
                        options.seed(),
                        pending(work),
                        seen);
        if (failure != null) {
            verdict = verdict.withFailure(failure);
        }
        return new RoundResult(used, verdict);
    }

    /**
     * Waits for the child to exit, killing it (SIGKILL) as {@code kill} says: at a random time, or
     * once its split state is due; a fault point kills itself.
     */
    private boolean awaitOrKill(Process child, ChildWatch watch, Kill kill) throws Exception {
        if (kill != null && kill.random()) {
            if (!child.waitFor(randomKillDelayMs(), TimeUnit.MILLISECONDS)) {
                child.destroyForcibly(); // SIGKILL
                child.waitFor();
            }
            return false;
        }
        boolean brokerKilled = false;
        if (kill != null && kill.broker()) {
            if (!child.waitFor(randomKillDelayMs(), TimeUnit.MILLISECONDS)) {
                long start = System.currentTimeMillis();
                broker.kill(); // SIGKILL of the broker; the job runs on and must recover
                broker.restart();
                brokerKilled = true;
                out.println(
                        "  broker killed and restarted ("
                                + (System.currentTimeMillis() - start)
                                + " ms)");
            }
        }
        CompletableFuture<?> until =
                kill != null && kill.splitState() != null
                        ? CompletableFuture.anyOf(child.onExit(), watch.due())
                        : child.onExit();
        try {
            until.get(10, TimeUnit.MINUTES);
        } catch (TimeoutException e) {
            child.destroyForcibly();
            throw new IllegalStateException("the verify job hung for 10 minutes");
        }
        if (child.isAlive()) {
            child.destroyForcibly(); // SIGKILL: the split state is due
            child.waitFor();
        }
        return brokerKilled;
    }

    /**
     * The pace of a seeded bug's round: the run's, but slow enough that its input lasts at least 2
     * s. Its kill (the 6th pre-commit, the 4th commit) must land while records still flow: a
     * transaction that holds no record exposes no bug, and 2 s are 40 checkpoint intervals.
     */
    private long seededBugRate() {
        return Math.max(1, Math.min(options.rate(), options.records() / 2));
    }

    /**
     * A random kill's delay: 100 ms, plus up to the time a run takes at its pace (roughly: records
     * over rate, stretched by the longest split) and 350 ms for the JVM to start, so random kills
     * spread over the whole run.
     */
    private int randomKillDelayMs() {
        long runMs =
                (long)
                        (1000.0
                                * options.records()
                                / options.rate()
                                * VerifyInput.runLengthFactor(options.source()));
        return 100 + random.nextInt((int) Math.min(Integer.MAX_VALUE - 1, runMs + 350));
    }

    /**
     * Starts the finished job once more on its directories: it resumes from its final checkpoint,
     * in which every split has ended, and must change nothing. Returns the finding, or null.
     */
    private String rerun(Path work, String bug, Tally tally) throws Exception {
        List<String> before = committed(work);
        Process child = startChild(work, null, bug);
        ChildWatch watch = new ChildWatch(child, new SplitStates(), null, splitCount, out);
        awaitOrKill(child, watch, null);
        watch.join();
        tally.states = tally.states.plusRerun();
        if (child.exitValue() != 0) {
            return "the finished job, started again on its directories, failed on its own (exit "
                    + child.exitValue()
                    + "); its output is above";
        }
        List<String> after = committed(work);
        if (!after.equals(before)) {
            return "the finished job, started again on its directories, changed its committed"
                    + " output: "
                    + before.size()
                    + " lines before, "
                    + after.size()
                    + " after"
                    + firstDifference(before, after);
        }
        return null;
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
                    // A new round is a new job: the sink would refuse the previous round's
                    // progress as output of a lost checkpoint, and its claim on the prefix as
                    // another job's.
                    statement.execute(
                            "DO $$ BEGIN IF to_regclass('weir_2pc_progress') IS NOT NULL THEN"
                                    + " DELETE FROM weir_2pc_progress WHERE transaction_prefix = '"
                                    + VerifyJob.PREFIX
                                    + "' OR (subtask = -1 AND starts_with(transaction_prefix, '"
                                    + VerifyJob.PREFIX
                                    + "' || E'\\nowner\\n')); END IF; END $$");
                    statement.execute(
                            "CREATE TABLE "
                                    + VerifyJob.TABLE
                                    + " (id bigserial PRIMARY KEY, k int, seq bigint,"
                                    + " count bigint, sum bigint)");
                }
            }
            case "kafka" -> {
                // A new round is a new job: a new topic, and a new transactional id prefix.
                kafkaTopic = "weir-verify-updates-" + (++kafkaTopics) + "-" + options.seed();
                KafkaVerify.createTopic(kafkaBootstrap, kafkaTopic, KafkaVerify.OUTPUT_PARTITIONS);
            }
            default -> {}
        }
    }

    /** Where two committed outputs first differ, for a finding: {@code "; line N was X, is Y"}. */
    static String firstDifference(List<String> before, List<String> after) {
        int n = Math.min(before.size(), after.size());
        for (int i = 0; i < n; i++) {
            if (!before.get(i).equals(after.get(i))) {
                return "; line "
                        + (i + 1)
                        + " was '"
                        + before.get(i)
                        + "', is '"
                        + after.get(i)
                        + "'";
            }
        }
        return before.size() > n
                ? "; line " + (n + 1) + " '" + before.get(n) + "' is gone"
                : after.size() > n ? "; line " + (n + 1) + " '" + after.get(n) + "' is new" : "";
    }

    private List<String> committed(Path work) throws Exception {
        return switch (options.sink()) {
            case "file" -> CommittedOutput.fileLines(work.resolve("out"));
            case "log" -> CommittedOutput.logLines(work.resolve("log"));
            case "kafka" -> KafkaVerify.committed(kafkaBootstrap, kafkaTopic);
            default -> CommittedOutput.postgresLines(jdbcUrl);
        };
    }

    private List<String> pending(Path work) throws Exception {
        return switch (options.sink()) {
            case "file" -> CommittedOutput.filePending(work.resolve("out"));
            case "log" -> CommittedOutput.logPending(work.resolve("log"));
            case "kafka" -> KafkaVerify.pending(kafkaBootstrap, kafkaTopic);
            default -> CommittedOutput.postgresPending(jdbcUrl);
        };
    }

    /**
     * Polls committed output while the round runs and remembers every line seen. Not for the log
     * sink: opening the log repairs a torn tail, which a reader must not do under a live writer.
     */
    private Thread startReader(
            Path work, Set<String> seen, java.util.concurrent.atomic.AtomicBoolean reading) {
        Thread thread =
                new Thread(
                        () -> {
                            while (reading.get() && !Thread.currentThread().isInterrupted()) {
                                try {
                                    if (options.sink().equals("file")) {
                                        seen.addAll(CommittedOutput.fileLines(work.resolve("out")));
                                    } else if (options.sink().equals("postgres")) {
                                        seen.addAll(CommittedOutput.postgresLines(jdbcUrl));
                                    } else if (options.sink().equals("kafka")) {
                                        seen.addAll(
                                                KafkaVerify.committed(kafkaBootstrap, kafkaTopic));
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
        command.add(options.source());
        command.add(options.sink());
        command.add(work.toString());
        command.add(options.work().resolve("input").toString());
        command.add(Long.toString(options.records()));
        command.add(Integer.toString(options.keys()));
        command.add(Long.toString(options.seed()));
        command.add(Long.toString(bug == null ? options.rate() : seededBugRate()));
        if (jdbcUrl != null) {
            command.add("jdbc=" + jdbcUrl);
        }
        if (kafkaBootstrap != null) {
            command.add("kafka=" + kafkaBootstrap);
        }
        if (kafkaTopic != null) {
            command.add("kafka-out=" + kafkaTopic);
        }
        command.add("workload=" + options.workload());
        if (flink != null) {
            command.add("flink=localhost:" + flink.restPort());
        }
        return new ProcessBuilder(command).redirectErrorStream(true).start();
    }

    static long percentile(List<Long> sorted, int percent) {
        if (sorted.isEmpty()) {
            return 0;
        }
        int index = (int) Math.ceil(percent / 100.0 * sorted.size()) - 1;
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, index)));
    }

    /** Deletes {@code path}: a file, or a directory with everything under it; absent is fine. */
    static void deleteRecursively(Path path) throws IOException {
        if (!Files.exists(path)) {
            return;
        }
        try (java.util.stream.Stream<Path> paths = Files.walk(path)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
