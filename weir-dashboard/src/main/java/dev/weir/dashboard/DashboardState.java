package dev.weir.dashboard;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weir.api.GuaranteeReport;
import dev.weir.api.JobHandle;
import dev.weir.api.checkpoint.CheckpointStats;
import dev.weir.api.metrics.JobMetrics;
import dev.weir.api.metrics.JobMetrics.ChannelMetrics;
import dev.weir.api.metrics.JobMetrics.SourceMetrics;
import dev.weir.api.metrics.JobMetrics.StepMetrics;
import dev.weir.api.metrics.JobMetrics.TaskMetrics;
import dev.weir.api.plan.PipelinePlan;
import dev.weir.api.plan.Step;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * What {@code GET /api/state} answers: the job's graph, counters, checkpoints, failures and
 * guarantee, read from the job's live view at the time of the request. The page derives rates from
 * two answers in a row; this class keeps no history.
 *
 * <p>Edges: the plan's step-to-step edges. An edge into a step that heads a task chain crosses
 * channels ({@code producer#i->consumer#j}, named after the chains' head steps); its fill is the
 * fullest of those channels now (near 1: the consumer pushes back). An edge inside a chain is a
 * method call and has no fill.
 */
final class DashboardState {
    /** Checkpoints sent, newest last. */
    static final int CHECKPOINTS_SENT = 60;

    private static final ObjectMapper JSON = new ObjectMapper();

    private final JobHandle job;
    private final PipelinePlan plan;
    private final GuaranteeReport guarantee;
    private final FailureLog failures;

    /** The head step of the task chain each step runs in. */
    private final Map<String, String> chainOf = new HashMap<>();

    /** Heads of chains that read channels. */
    private final Set<String> channelHeads = new HashSet<>();

    DashboardState(
            JobHandle job, PipelinePlan plan, GuaranteeReport guarantee, FailureLog failures) {
        this.job = job;
        this.plan = plan;
        this.guarantee = guarantee;
        this.failures = failures;
        for (ChannelMetrics channel : job.metrics().channels()) {
            channelHeads.add(vertex(channel.to()));
        }
        for (Step step : plan.steps()) {
            boolean head = step.inputs().isEmpty() || channelHeads.contains(step.name());
            chainOf.put(
                    step.name(),
                    head ? step.name() : chainOf.get(plan.step(step.inputs().get(0)).name()));
        }
    }

    /** {@code vertex#3} → {@code vertex}. */
    private static String vertex(String task) {
        int hash = task.lastIndexOf('#');
        return hash < 0 ? task : task.substring(0, hash);
    }

    static String kind(Step step) {
        String simple = step.getClass().getSimpleName();
        String kind = simple.endsWith("Step") ? simple.substring(0, simple.length() - 4) : simple;
        return kind.toLowerCase(Locale.ROOT);
    }

    byte[] toJson() throws java.io.IOException {
        ObjectNode root = JSON.createObjectNode();
        JobMetrics metrics = job.metrics();
        root.put("job", metrics.jobName());
        root.put("done", job.isDone());
        root.put("epochMillis", System.currentTimeMillis());
        root.put("nanos", System.nanoTime());
        // A runner that keeps no figures of its own (JobMetrics.of) has no steps, tasks or
        // channels.
        root.put("figures", !metrics.steps().isEmpty() || !metrics.tasks().isEmpty());
        steps(root.putArray("steps"), metrics);
        edges(root.putArray("edges"), metrics);
        tasks(root.putArray("tasks"), metrics);
        sources(root.putArray("sources"), metrics);
        checkpoints(root);
        restarts(root.putObject("restarts"), metrics);
        guarantee(root.putObject("guarantee"));
        return JSON.writeValueAsBytes(root);
    }

    private void steps(ArrayNode out, JobMetrics metrics) {
        Map<String, long[]> counts = new HashMap<>(); // in, out, subtasks
        for (StepMetrics step : metrics.steps()) {
            long[] c = counts.computeIfAbsent(step.step(), k -> new long[3]);
            c[0] += step.recordsIn();
            c[1] += step.recordsOut();
            c[2]++;
        }
        for (Step step : plan.steps()) {
            ObjectNode node = out.addObject();
            node.put("id", step.id());
            node.put("name", step.name());
            node.put("kind", kind(step));
            node.put("chain", chainOf.get(step.name()));
            ArrayNode inputs = node.putArray("inputs");
            step.inputs().forEach(inputs::add);
            long[] c = counts.get(step.name());
            if (c != null) {
                node.put("recordsIn", c[0]);
                node.put("recordsOut", c[1]);
                node.put("subtasks", c[2]);
            } else {
                node.putNull("recordsIn");
                node.putNull("recordsOut");
                node.put("subtasks", 0);
            }
        }
    }

    private void edges(ArrayNode out, JobMetrics metrics) {
        for (Step step : plan.steps()) {
            for (int input : step.inputs()) {
                Step from = plan.step(input);
                ObjectNode edge = out.addObject();
                edge.put("from", from.id());
                edge.put("to", step.id());
                boolean crossesChannels =
                        channelHeads.contains(step.name())
                                && chainOf.get(step.name()).equals(step.name());
                edge.put("channel", crossesChannels);
                if (!crossesChannels) {
                    edge.putNull("fill");
                    continue;
                }
                String producer = chainOf.get(from.name());
                double fill = 0;
                int queued = 0;
                int capacity = 0;
                int channels = 0;
                for (ChannelMetrics channel : metrics.channels()) {
                    if (vertex(channel.to()).equals(step.name())
                            && vertex(channel.from()).equals(producer)) {
                        fill = Math.max(fill, channel.fill());
                        queued += channel.queuedItems();
                        capacity += channel.capacityItems();
                        channels++;
                    }
                }
                edge.put("fill", fill);
                edge.put("queuedItems", queued);
                edge.put("capacityItems", capacity);
                edge.put("channels", channels);
            }
        }
    }

    private static void tasks(ArrayNode out, JobMetrics metrics) {
        for (TaskMetrics task : metrics.tasks()) {
            ObjectNode node = out.addObject();
            node.put("task", task.task());
            node.put("chain", vertex(task.task()));
            node.put("busyNanos", task.busyNanos());
            node.put("backpressuredNanos", task.backpressuredNanos());
            node.put("idleNanos", task.idleNanos());
        }
    }

    private static void sources(ArrayNode out, JobMetrics metrics) {
        for (SourceMetrics source : metrics.sources()) {
            ObjectNode node = out.addObject();
            node.put("step", source.step());
            node.put("subtask", source.subtask());
            node.put("lag", source.lag());
        }
    }

    private void checkpoints(ObjectNode root) {
        List<CheckpointStats> all = job.checkpointStats();
        root.put("checkpointsCompleted", job.metrics().checkpointsCompleted());
        ArrayNode out = root.putArray("checkpoints");
        for (CheckpointStats stats :
                all.subList(Math.max(0, all.size() - CHECKPOINTS_SENT), all.size())) {
            ObjectNode node = out.addObject();
            node.put("id", stats.id());
            node.put("savepoint", stats.savepoint());
            node.put("triggerEpochMillis", stats.triggerEpochMillis());
            node.put("durationMillis", stats.durationMillis());
            node.put("sizeBytes", stats.sizeBytes());
            node.put("maxAlignmentNanos", stats.maxAlignmentNanos());
            node.put("tasks", stats.tasks().size());
        }
    }

    private void restarts(ObjectNode out, JobMetrics metrics) {
        out.put("count", metrics.restarts());
        out.put("causesRecorded", failures != null);
        out.put("failures", failures == null ? 0 : failures.total());
        ArrayNode list = out.putArray("events");
        if (failures == null) {
            return;
        }
        for (FailureLog.Failure failure : failures.failures()) {
            ObjectNode node = list.addObject();
            node.put("attempt", failure.attempt());
            node.put("epochMillis", failure.epochMillis());
            node.put("willRestart", failure.willRestart());
            node.put("cause", failure.cause());
            ArrayNode causedBy = node.putArray("causedBy");
            failure.causedBy().forEach(causedBy::add);
        }
    }

    private void guarantee(ObjectNode out) {
        out.put("verdict", guarantee.guarantee().name());
        out.put("describe", guarantee.describe());
        GuaranteeReport.Component weakest = guarantee.limitedBy();
        if (weakest == null) {
            out.putNull("weakest");
        } else {
            component(out.putObject("weakest"), weakest);
        }
        ArrayNode components = out.putArray("components");
        for (GuaranteeReport.Component component : guarantee.components()) {
            component(components.addObject(), component);
        }
    }

    private static void component(ObjectNode out, GuaranteeReport.Component component) {
        out.put("name", component.name());
        out.put("guarantee", component.guarantee().name());
        out.put("reason", component.reason());
        out.put("fix", component.fix());
    }
}
