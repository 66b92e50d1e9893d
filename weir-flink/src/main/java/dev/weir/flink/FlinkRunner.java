package dev.weir.flink;

import dev.weir.api.JobHandle;
import dev.weir.api.plan.PipelinePlan;
import dev.weir.api.plan.Runner;
import java.util.List;
import java.util.UUID;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * Runs a Weir pipeline as an Apache Flink job: {@code pipeline.run(FlinkRunner.local(2))}.
 *
 * <p>{@link #local(int)} starts a Flink MiniCluster in this JVM for the job (and stops it when the
 * job ends). The pipeline is translated as {@code Translator} describes; what Flink cannot run is
 * refused by {@link #start} with the step and the feature named, before anything starts. The
 * end-to-end guarantee analysis is {@code Pipeline}'s and applies unchanged: sources keep their
 * offsets in Flink's checkpoints, two-phase-commit sinks commit after Flink's checkpoints complete.
 *
 * <p>Thread-safe; each {@link #start} is an independent job.
 */
public final class FlinkRunner implements Runner {
    private final int slots;
    private final String host;
    private final int restPort;
    private final String[] jars;

    private FlinkRunner(int slots, String host, int restPort, String[] jars) {
        this.slots = slots;
        this.host = host;
        this.restPort = restPort;
        this.jars = jars;
    }

    /**
     * A runner that starts each job on a local Flink MiniCluster with {@code slots} task slots: the
     * largest parallelism any step of the pipeline may have.
     *
     * @param slots task slots of each job's MiniCluster, at least 1
     * @return the runner
     * @throws IllegalArgumentException if {@code slots} is less than 1
     */
    public static FlinkRunner local(int slots) {
        if (slots < 1) {
            throw new IllegalArgumentException("a local Flink cluster needs >= 1 slot: " + slots);
        }
        return new FlinkRunner(slots, null, 0, new String[0]);
    }

    /**
     * A runner that submits each job to a running Flink session cluster (Flink 2.3) through its
     * REST endpoint {@code host:restPort}, shipping {@code jars} (the pipeline's classes and
     * Weir's, unless the cluster has them on its class path). Sources, functions, sinks and codecs
     * are serialised into the job, so they must be serialisable; checkpoint and sink directories
     * must be paths every TaskManager reaches.
     *
     * @param host the JobManager's host name or address; not null
     * @param restPort the JobManager's REST port (Flink's default is 8081)
     * @param jars paths of jar files to ship with each job; none if the cluster has the classes
     * @return the runner
     * @throws IllegalArgumentException if {@code restPort} is not within 1..65535
     */
    public static FlinkRunner remote(String host, int restPort, String... jars) {
        if (restPort < 1 || restPort > 65_535) {
            throw new IllegalArgumentException("REST port must be within 1..65535: " + restPort);
        }
        return new FlinkRunner(
                0, java.util.Objects.requireNonNull(host, "host"), restPort, jars.clone());
    }

    @Override
    public String name() {
        return "flink";
    }

    /**
     * Translates {@code plan} and submits it.
     *
     * @throws UnsupportedOperationException naming every step and feature Flink cannot run, or a
     *     step whose parallelism exceeds the cluster's slots
     */
    @Override
    public JobHandle start(PipelinePlan plan) {
        List<String> refusals = Translator.refusals(plan);
        int widest = plan.settings().parallelism();
        for (var step : plan.steps()) {
            widest = Math.max(widest, step.parallelism());
        }
        if (host == null && widest > slots) {
            refusals = new java.util.ArrayList<>(refusals);
            refusals.add(
                    "parallelism "
                            + widest
                            + " exceeds the "
                            + slots
                            + " slots of the local Flink cluster; use FlinkRunner.local("
                            + widest
                            + ") or lower the parallelism");
        }
        if (!refusals.isEmpty()) {
            throw new UnsupportedOperationException(
                    "pipeline '"
                            + plan.name()
                            + "' cannot run on Flink: "
                            + String.join("; ", refusals));
        }
        Configuration conf = Translator.configuration(plan);
        StreamExecutionEnvironment env;
        if (host == null) {
            conf.set(TaskManagerOptions.NUM_TASK_SLOTS, slots);
            env = StreamExecutionEnvironment.createLocalEnvironment(slots, conf);
        } else {
            env = StreamExecutionEnvironment.createRemoteEnvironment(host, restPort, conf, jars);
        }
        String jobId = UUID.randomUUID().toString();
        try {
            Translator.Job job = Translator.build(plan, env, jobId, host == null);
            long startNanos = System.nanoTime();
            JobClient client = env.executeAsync(plan.name());
            return new FlinkJobHandle(
                    plan.name(),
                    client,
                    job.attempts(),
                    startNanos,
                    jobId,
                    plan.settings().checkpoints().mode()
                                    == dev.weir.api.checkpoint.CheckpointingMode.NONE
                            ? null
                            : plan.settings().checkpoints().directory());
        } catch (Exception e) {
            Shared.release(jobId);
            throw new IllegalStateException(
                    "cannot submit pipeline '" + plan.name() + "' to Flink: " + e.getMessage(), e);
        }
    }

    @Override
    public String toString() {
        return host == null
                ? "FlinkRunner.local(" + slots + ")"
                : "FlinkRunner.remote(" + host + ", " + restPort + ")";
    }
}
