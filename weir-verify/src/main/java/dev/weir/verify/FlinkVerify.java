package dev.weir.verify;

import dev.weir.flink.cluster.LocalFlinkCluster;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code weir verify --runner flink}: the verify job on a standalone Flink cluster started as child
 * JVMs (one JobManager, two TaskManagers with two slots each, {@link LocalFlinkCluster}), whose
 * TaskManagers are SIGKILLed at random times and started again. The job's client is a {@link
 * VerifyJob} child that submits to the cluster and waits; Flink restarts the job from its newest
 * completed checkpoint after each kill.
 */
final class FlinkVerify implements AutoCloseable {
    /** The sinks verified on Flink. */
    static final List<String> SINKS = List.of("file", "log", "postgres");

    /** The sources verified on Flink. */
    static final List<String> SOURCES = List.of("log", "files", "sequence");

    private static final Pattern JOB = Pattern.compile("\\{\"jid\":\"([0-9a-f]+)\"");
    private static final Pattern STATE = Pattern.compile("\"state\":\"([A-Z_]+)\"");
    private static final Pattern TASKS = Pattern.compile("\"tasks\":\\{([^}]*)}");

    private final LocalFlinkCluster cluster;
    private final Random random;
    private final PrintStream out;
    private final Thread stop;

    private FlinkVerify(LocalFlinkCluster cluster, Random random, PrintStream out, Thread stop) {
        this.cluster = cluster;
        this.stop = stop;
        this.random = random;
        this.out = out;
    }

    /**
     * Refuses options the Flink runner does not verify, naming what to change: the self-check's
     * seeded bugs live in Weir's runtime, which Flink replaces, and so do the fault points.
     */
    static void check(
            String runner, String source, String sink, String workload, List<String> seededBugs) {
        if (runner.equals("weir")) {
            return;
        }
        if (!runner.equals("flink")) {
            throw new IllegalArgumentException(
                    "unknown runner '" + runner + "'; use local or flink");
        }
        if (!SOURCES.contains(source)) {
            throw new IllegalArgumentException(
                    "--runner flink verifies the sources " + SOURCES + ", not " + source);
        }
        if (!SINKS.contains(sink)) {
            throw new IllegalArgumentException(
                    "--runner flink verifies the sinks " + SINKS + ", not " + sink);
        }
        if (!workload.equals("count")) {
            throw new IllegalArgumentException("--runner flink runs the count workload only");
        }
        if (!seededBugs.isEmpty()) {
            throw new IllegalArgumentException(
                    "the self-check's seeded bugs are in Weir's runtime, which --runner flink"
                            + " replaces: add --no-self-check");
        }
    }

    /** Starts the cluster in {@code dir}; {@code random} picks the TaskManagers to kill. */
    static FlinkVerify start(Path dir, Random random, PrintStream out) throws Exception {
        Verifier.deleteRecursively(dir);
        long started = System.nanoTime();
        LocalFlinkCluster cluster = LocalFlinkCluster.start(dir, 2, Duration.ofMinutes(3));
        out.printf(
                "flink cluster: JobManager and 2 TaskManagers on REST port %d (%d ms); logs in"
                        + " %s%n",
                cluster.restPort(),
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started),
                dir);
        // Interrupted (Ctrl-C, SIGTERM), the harness takes the cluster's JVMs with it.
        Thread stop =
                new Thread(
                        () -> {
                            try {
                                cluster.close();
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                        },
                        "flink-cluster-stop");
        Runtime.getRuntime().addShutdownHook(stop);
        return new FlinkVerify(cluster, random, out, stop);
    }

    int restPort() {
        return cluster.restPort();
    }

    /**
     * Waits until the cluster's job runs with every task that has not finished running; false if
     * {@code client} exited first (the job ended).
     */
    boolean awaitRunning(Process client, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (!client.isAlive()) {
                return false;
            }
            if (allRunning(cluster.rest("/jobs/overview"))) {
                return true;
            }
            client.waitFor(50, TimeUnit.MILLISECONDS); // paces the polling
        }
        throw new IllegalStateException(
                "the Flink job did not run every task within " + timeout + ": " + stuck());
    }

    /** The active job's state and the start of its newest failure, for a stuck job. */
    private String stuck() throws Exception {
        for (String job : jobs(cluster.rest("/jobs/overview"))) {
            Matcher state = STATE.matcher(job);
            Matcher id = JOB.matcher(job);
            if (state.find()
                    && id.find()
                    && !List.of("FINISHED", "FAILED", "CANCELED").contains(state.group(1))) {
                String exceptions = cluster.rest("/jobs/" + id.group(1) + "/exceptions");
                Matcher root =
                        Pattern.compile("\"root-exception\":\"([^\"]{0,800})").matcher(exceptions);
                return "job "
                        + id.group(1)
                        + " is "
                        + state.group(1)
                        + (root.find()
                                ? "; its newest failure: " + root.group(1).replace("\\n\\t", " | ")
                                : "");
            }
        }
        return "no active job";
    }

    /**
     * SIGKILLs a TaskManager that runs tasks and starts it again, then waits until Flink noticed
     * (the job no longer runs every task). Returns the time of the kill (epoch millis), or 0 if no
     * TaskManager ran tasks (the job ended meanwhile).
     */
    long killTaskManager(Process client) throws Exception {
        long killedAt = System.currentTimeMillis();
        int index = cluster.killBusyTaskManager(random);
        if (index < 0) {
            return 0;
        }
        cluster.restartTaskManager(index);
        out.println("  killed TaskManager " + index + " (SIGKILL) and started it again");
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        while (System.nanoTime() < deadline) {
            String jobs = cluster.rest("/jobs/overview");
            if (!allRunning(jobs) || !hasActiveJob(jobs) || !client.isAlive()) {
                return killedAt;
            }
            client.waitFor(20, TimeUnit.MILLISECONDS); // paces the polling
        }
        throw new IllegalStateException("Flink did not notice the TaskManager kill in 2 minutes");
    }

    /** True if a job that is not finished, failed or cancelled runs every unfinished task. */
    static boolean allRunning(String overview) {
        for (String job : jobs(overview)) {
            Matcher state = STATE.matcher(job);
            Matcher tasks = TASKS.matcher(job);
            if (!state.find() || !state.group(1).equals("RUNNING") || !tasks.find()) {
                continue;
            }
            String counts = tasks.group(1);
            long total = count(counts, "total");
            long running = count(counts, "running");
            long finished = count(counts, "finished");
            return running > 0 && running + finished == total;
        }
        return false;
    }

    private static boolean hasActiveJob(String overview) {
        for (String job : jobs(overview)) {
            Matcher state = STATE.matcher(job);
            if (state.find()
                    && !List.of("FINISHED", "FAILED", "CANCELED").contains(state.group(1))) {
                return true;
            }
        }
        return false;
    }

    private static List<String> jobs(String overview) {
        List<String> jobs = new java.util.ArrayList<>();
        Matcher job = JOB.matcher(overview);
        int start = -1;
        while (job.find()) {
            if (start >= 0) {
                jobs.add(overview.substring(start, job.start()));
            }
            start = job.start();
        }
        if (start >= 0) {
            jobs.add(overview.substring(start));
        }
        return jobs;
    }

    private static long count(String counts, String name) {
        Matcher m = Pattern.compile("\"" + name + "\":(\\d+)").matcher(counts);
        return m.find() ? Long.parseLong(m.group(1)) : 0;
    }

    @Override
    public void close() throws InterruptedException {
        Runtime.getRuntime().removeShutdownHook(stop);
        cluster.close();
    }
}
