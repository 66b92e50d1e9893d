package dev.weir.metrics;

import dev.weir.api.JobHandle;
import dev.weir.api.checkpoint.CheckpointStats;
import dev.weir.api.metrics.JobMetrics;
import dev.weir.api.metrics.JobMetrics.ChannelMetrics;
import dev.weir.api.metrics.JobMetrics.SinkMetrics;
import dev.weir.api.metrics.JobMetrics.SourceMetrics;
import dev.weir.api.metrics.JobMetrics.StepMetrics;
import dev.weir.api.metrics.JobMetrics.TaskMetrics;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.search.Search;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

/**
 * Binds a running job's figures ({@link JobHandle#metrics()}) to Micrometer.
 *
 * <h2>What is registered</h2>
 *
 * Every meter is tagged {@code job}; per-step meters also {@code step} and {@code subtask},
 * per-task meters {@code task} ({@code vertex#subtask}), per-channel meters {@code from} and {@code
 * to}. Names as Micrometer writes them (a Prometheus registry turns dots into underscores and adds
 * {@code _total}, {@code _seconds} or {@code _bytes}):
 *
 * <ul>
 *   <li>{@code weir.step.records.in}, {@code weir.step.records.out} (counters): records into and
 *       out of each step subtask; a source's in is what it read, a sink's out what it wrote.
 *   <li>{@code weir.task.busy.time}, {@code weir.task.backpressured.time}, {@code
 *       weir.task.idle.time} (counters, seconds): where each task's time went.
 *   <li>{@code weir.channel.fill} (gauge, 0..1), {@code weir.channel.queued.items}, {@code
 *       weir.channel.queued} (gauge, bytes): each channel between tasks now.
 *   <li>{@code weir.checkpoints.completed} (counter); {@code weir.checkpoint.duration}, {@code
 *       weir.checkpoint.alignment} (time gauges) and {@code weir.checkpoint.size} (gauge, bytes) of
 *       the newest completed checkpoint.
 *   <li>{@code weir.job.restarts} (counter).
 *   <li>{@code weir.source.lag} (gauge): records behind the end of the input, NaN where the source
 *       cannot tell; {@code weir.source.alignment.paused.time} (counter, seconds): time the subtask
 *       skipped reads to wait for a slower sibling ({@code Pipeline.watermarkAlignment}).
 *   <li>{@code weir.sink.commit} (function timer: commits and their total time) and {@code
 *       weir.sink.commit.last} (time gauge) for each subtask of a sink that commits: phase 2 of a
 *       two-phase-commit or write-ahead sink, the upsert at a barrier of an idempotent sink.
 * </ul>
 *
 * <p>Meters read the job's plain counters when the registry asks (at a scrape or a publish); the
 * job does no work for them. The steps, tasks and channels are those of the job when it is bound,
 * which is all of them: {@code Pipeline.start} returns with the first attempt built.
 */
public final class WeirMetrics {
    private WeirMetrics() {}

    /** Held while a job's name is checked and its meters registered, so two binds cannot race. */
    private static final Object BINDING = new Object();

    /**
     * Registers meters for {@code job} in {@code registry}.
     *
     * <p>A registry holds one job of a name at a time: meters are told apart by name and tags, and
     * the job's name is the only tag all of them carry, so a second job of the same name would get
     * the first one's meters back (and show its figures). Binding a job whose name is already bound
     * to {@code registry} is therefore refused; close the first binding, or give the jobs different
     * names ({@code Pipeline.create(name)}).
     *
     * @param job a started job
     * @param registry where to register; nothing is registered anywhere else
     * @return the meters, which {@link MeterBinding#close} removes again
     * @throws IllegalStateException if a job of the same name is bound to {@code registry}
     */
    public static MeterBinding bind(JobHandle job, MeterRegistry registry) {
        Objects.requireNonNull(job, "job");
        Objects.requireNonNull(registry, "registry");
        JobMetrics metrics = job.metrics();
        synchronized (BINDING) {
            if (!Search.in(registry)
                    .name(name -> name.startsWith("weir."))
                    .tag("job", metrics.jobName())
                    .meters()
                    .isEmpty()) {
                throw new IllegalStateException(
                        "a job named '"
                                + metrics.jobName()
                                + "' is already bound to this registry (its meters would be"
                                + " mistaken for this job's); close that job's MeterBinding first,"
                                + " or give the jobs different names");
            }
            return register(metrics, registry);
        }
    }

    private static MeterBinding register(JobMetrics metrics, MeterRegistry registry) {
        List<Meter> meters = new ArrayList<>();
        Tags jobTag = Tags.of("job", metrics.jobName());
        bindJob(metrics, jobTag, registry, meters);
        for (StepMetrics step : metrics.steps()) {
            Tags tags =
                    jobTag.and("step", step.step(), "subtask", Integer.toString(step.subtask()));
            meters.add(
                    counter("weir.step.records.in", step, StepMetrics::recordsIn, tags)
                            .description("Records into the step (for a source: records read)")
                            .register(registry));
            meters.add(
                    counter("weir.step.records.out", step, StepMetrics::recordsOut, tags)
                            .description("Records out of the step (for a sink: records written)")
                            .register(registry));
        }
        for (TaskMetrics task : metrics.tasks()) {
            Tags tags = jobTag.and("task", task.task());
            meters.add(
                    seconds("weir.task.busy.time", task, TaskMetrics::busyNanos, tags, registry));
            meters.add(
                    seconds(
                            "weir.task.backpressured.time",
                            task,
                            TaskMetrics::backpressuredNanos,
                            tags,
                            registry));
            meters.add(
                    seconds("weir.task.idle.time", task, TaskMetrics::idleNanos, tags, registry));
        }
        for (ChannelMetrics channel : metrics.channels()) {
            Tags tags = jobTag.and("from", channel.from(), "to", channel.to());
            meters.add(
                    gauge("weir.channel.fill", channel, ChannelMetrics::fill, tags)
                            .description("How full the channel is, 0 to 1")
                            .register(registry));
            meters.add(
                    gauge("weir.channel.queued.items", channel, c -> c.queuedItems(), tags)
                            .description("Batches and events waiting in the channel")
                            .register(registry));
            meters.add(
                    gauge("weir.channel.queued", channel, c -> c.queuedBytes(), tags)
                            .baseUnit("bytes")
                            .description("Estimated bytes of records waiting in the channel")
                            .register(registry));
        }
        for (SourceMetrics source : metrics.sources()) {
            Tags tags =
                    jobTag.and(
                            "step", source.step(), "subtask", Integer.toString(source.subtask()));
            meters.add(
                    gauge("weir.source.lag", source, WeirMetrics::lagOrNaN, tags)
                            .description(
                                    "Records (bytes for the files source) behind the end of the input (NaN: unknown)")
                            .register(registry));
            meters.add(
                    seconds(
                            "weir.source.alignment.paused.time",
                            source,
                            SourceMetrics::alignmentPausedNanos,
                            tags,
                            registry));
        }
        for (SinkMetrics sink : metrics.sinks()) {
            Tags tags =
                    jobTag.and("step", sink.step(), "subtask", Integer.toString(sink.subtask()));
            meters.add(
                    FunctionTimer.builder(
                                    "weir.sink.commit",
                                    sink,
                                    SinkMetrics::commits,
                                    s -> s.commitNanos(),
                                    TimeUnit.NANOSECONDS)
                            .tags(tags)
                            .description(
                                    "Commits of the sink (phase 2, or an idempotent sink's upserts) and their time")
                            .register(registry));
            meters.add(
                    TimeGauge.builder(
                                    "weir.sink.commit.last",
                                    sink,
                                    TimeUnit.NANOSECONDS,
                                    s -> s.lastCommitNanos())
                            .tags(tags)
                            .strongReference(true)
                            .description("How long the newest commit took")
                            .register(registry));
        }
        return new MeterBinding(registry, meters);
    }

    /**
     * Serves {@code job}'s meters for a Prometheus scrape at {@code http://127.0.0.1:port/metrics}
     * (GET only), from a registry of its own.
     *
     * @param job a started job
     * @param port the port to listen on; 0 picks a free one ({@link PrometheusEndpoint#port()})
     * @return the running endpoint; {@link PrometheusEndpoint#close} stops it
     * @throws IOException if the port cannot be bound
     */
    public static PrometheusEndpoint prometheus(JobHandle job, int port) throws IOException {
        Objects.requireNonNull(job, "job");
        return PrometheusEndpoint.start(job, port);
    }

    private static void bindJob(
            JobMetrics metrics, Tags tags, MeterRegistry registry, List<Meter> meters) {
        meters.add(
                counter("weir.job.restarts", metrics, m -> m.restarts(), tags)
                        .description("Restarts after a failure")
                        .register(registry));
        meters.add(
                counter("weir.checkpoints.completed", metrics, m -> m.checkpointsCompleted(), tags)
                        .description("Checkpoints and savepoints completed")
                        .register(registry));
        // Strongly referenced: Micrometer holds a function meter's object weakly, and this keeps
        // the view (and through it every step, task and channel view) alive with the registry.
        meters.add(
                Gauge.builder(
                                "weir.checkpoint.size",
                                metrics,
                                m -> last(m, CheckpointStats::sizeBytes))
                        .tags(tags)
                        .baseUnit("bytes")
                        .strongReference(true)
                        .description("Size of the newest completed checkpoint")
                        .register(registry));
        meters.add(
                TimeGauge.builder(
                                "weir.checkpoint.duration",
                                metrics,
                                TimeUnit.MILLISECONDS,
                                m -> last(m, CheckpointStats::durationMillis))
                        .tags(tags)
                        .strongReference(true)
                        .description("Trigger to durable, of the newest completed checkpoint")
                        .register(registry));
        meters.add(
                TimeGauge.builder(
                                "weir.checkpoint.alignment",
                                metrics,
                                TimeUnit.NANOSECONDS,
                                m -> last(m, CheckpointStats::maxAlignmentNanos))
                        .tags(tags)
                        .strongReference(true)
                        .description("Longest barrier alignment of any task, newest checkpoint")
                        .register(registry));
    }

    private static double last(JobMetrics metrics, ToDoubleFunction<CheckpointStats> figure) {
        CheckpointStats last = metrics.lastCheckpoint();
        return last == null ? Double.NaN : figure.applyAsDouble(last);
    }

    private static double lagOrNaN(SourceMetrics source) {
        long lag = source.lag();
        return lag < 0 ? Double.NaN : lag;
    }

    private static <T> FunctionCounter.Builder<T> counter(
            String name, T object, ToDoubleFunction<T> count, Tags tags) {
        return FunctionCounter.builder(name, object, count).tags(tags);
    }

    private static <T> Gauge.Builder<T> gauge(
            String name, T object, ToDoubleFunction<T> value, Tags tags) {
        return Gauge.builder(name, object, value).tags(tags).strongReference(true);
    }

    private static <T> Meter seconds(
            String name,
            T object,
            java.util.function.ToLongFunction<T> nanos,
            Tags tags,
            MeterRegistry registry) {
        return FunctionCounter.builder(name, object, o -> nanos.applyAsLong(o) / 1e9)
                .tags(tags)
                .baseUnit("seconds")
                .register(registry);
    }
}
