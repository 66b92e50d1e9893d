package dev.weir.api;

import dev.weir.api.checkpoint.CheckpointConfig;
import dev.weir.api.checkpoint.CheckpointingMode;
import dev.weir.api.function.KeySelector;
import dev.weir.api.plan.PipelinePlan;
import dev.weir.api.plan.Runner;
import dev.weir.api.plan.Step;
import dev.weir.api.sink.Sink;
import dev.weir.api.sink.TwoPhaseCommitSink;
import dev.weir.api.source.Source;
import dev.weir.api.state.KeyedStateBackendFactory;
import dev.weir.api.state.StateBackends;
import dev.weir.api.time.WatermarkStrategy;
import dev.weir.internal.runtime.LocalRunner;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds and runs a dataflow job: sources, operators with keyed state, sinks.
 *
 * <pre>{@code
 * Pipeline pipeline = Pipeline.create("even-odd");
 * pipeline.source("numbers", Sources.sequence(1, 10))
 *         .keyBy(n -> n % 2 == 0 ? "even" : "odd")
 *         .reduce("sum", Long::sum)
 *         .sink("out", Sinks.console());
 * pipeline.run();
 * }</pre>
 *
 * <p>A pipeline runs in this JVM on a small pool of worker threads ({@link #workerThreads}, default
 * the number of cores). Each task (one subtask of a step and the steps chained to it) runs on one
 * worker at a time, and every call into it happens after the previous one completed; an idle worker
 * may run a busy worker's tasks, so successive calls can come from different worker threads ("the
 * task's thread" in the function and connector contracts means this one-at-a-time sequence). Do not
 * keep thread-confined resources (a {@code ThreadLocal} cache is fine, a lock held across calls is
 * not). Not thread-safe while being built; {@link #start} may be called more than once, each call
 * running an independent job.
 */
public final class Pipeline {
    private static final Logger LOG = LoggerFactory.getLogger(Pipeline.class);

    /** The default of {@link #watermarkAlignment}: 10 seconds of event time. */
    public static final Duration DEFAULT_WATERMARK_ALIGNMENT = Duration.ofSeconds(10);

    private final String name;
    private final List<StepBuilder> steps = new ArrayList<>();
    private final Set<String> names = new HashSet<>();
    private int parallelism = 1;
    private int maxParallelism = 128;
    private int batchSize = 1024;
    private int channelCapacityBatches = 64;
    private long channelCapacityBytes;
    private long autoWatermarkMillis = 50;
    private long watermarkAlignmentMillis = DEFAULT_WATERMARK_ALIGNMENT.toMillis();
    private int workerThreads = Runtime.getRuntime().availableProcessors();
    private long maxIdleParkNanos = 200_000;
    private CheckpointConfig checkpoints = CheckpointConfig.none();
    private RestartStrategy restartStrategy;
    private JobListener listener = new JobListener() {};
    private Path fromSavepoint;
    private boolean allowNonRestoredState;
    private long seed = 42;
    private boolean localRecovery = true;
    private Guarantee required;
    private KeyedStateBackendFactory stateBackend = StateBackends.heap();
    private InstantSource processingTimeClock;

    private Pipeline(String name) {
        this.name = validName(name, "pipeline");
    }

    /**
     * Starts building a pipeline called {@code name} (letters, digits, '-', '_', '.').
     *
     * @param name the pipeline's name; it names the job in logs, metrics and checkpoints
     * @return a new, empty pipeline
     * @throws IllegalArgumentException if {@code name} is empty, longer than 100 or has other
     *     characters
     */
    public static Pipeline create(String name) {
        return new Pipeline(name);
    }

    /**
     * The pipeline's name, as given to {@link #create}.
     *
     * @return the name
     */
    public String name() {
        return name;
    }

    /**
     * Default parallelism of every operator that sets none (default 1).
     *
     * @param parallelism subtasks per operator; at most {@link #maxParallelism}, checked at start
     * @return this pipeline
     */
    public Pipeline parallelism(int parallelism) {
        this.parallelism = parallelism;
        return this;
    }

    /**
     * Number of key groups (default 128): the most subtasks a keyed operator can ever have,
     * including after restoring a savepoint at a new parallelism.
     *
     * @param maxParallelism the number of key groups; keep it the same for the life of the job's
     *     checkpoints
     * @return this pipeline
     */
    public Pipeline maxParallelism(int maxParallelism) {
        this.maxParallelism = maxParallelism;
        return this;
    }

    /**
     * Records per batch sent between tasks (default 1024).
     *
     * @param batchSize records per batch
     * @return this pipeline
     */
    public Pipeline batchSize(int batchSize) {
        this.batchSize = batchSize;
        return this;
    }

    /**
     * Batches one channel holds before its producer is held back (default 64).
     *
     * @param channelCapacityBatches batches per channel
     * @return this pipeline
     */
    public Pipeline channelCapacityBatches(int channelCapacityBatches) {
        this.channelCapacityBatches = channelCapacityBatches;
        return this;
    }

    /**
     * Estimated bytes of records one channel holds before its producer is held back. By default (0)
     * a quarter of the maximum heap is shared by all of the job's channels, so a slow step holds
     * back fast ones before records fill the heap, whatever their size.
     *
     * @param bytes estimated bytes per channel, or 0 for the heap-based default
     * @return this pipeline
     */
    public Pipeline channelCapacityBytes(long bytes) {
        this.channelCapacityBytes = bytes;
        return this;
    }

    /**
     * How often steps that assign timestamps ({@link DataStream#assignTimestampsAndWatermarks}) ask
     * their watermark generator for a watermark (default 50 ms; zero: only when the generator emits
     * on its own, and at the end of input).
     *
     * <p>Flink's default is 200 ms. Weir's is shorter because it reads faster: between two periodic
     * watermarks a window or join keeps every record read meanwhile, and at a few million records a
     * second 200 ms were minutes of event time in Nexmark (q8's window state, collected and
     * checkpointed, was most of the job's work). A request costs one call to the generator per
     * subtask and one small event per channel.
     *
     * @param interval time between watermark requests; zero turns periodic requests off
     * @return this pipeline
     */
    public Pipeline autoWatermarkInterval(Duration interval) {
        this.autoWatermarkMillis = interval.toMillis();
        return this;
    }

    /**
     * How far in event time a subtask of a source may run ahead of the slowest of its siblings
     * before it stops reading until they catch up (default {@link #DEFAULT_WATERMARK_ALIGNMENT}, 10
     * s; zero turns alignment off). The drift is measured on the watermarks the subtasks send on,
     * from the source's own strategy or an {@link DataStream#assignTimestampsAndWatermarks} chained
     * to it.
     *
     * <p>Why: a keyed step takes the least watermark of its inputs, so a window or join keeps every
     * record of the fast subtasks until the slowest one's watermark passes; Weir's workers share
     * cores between tasks, and without a bound the subtasks of one source drifted hundreds of
     * seconds apart, with state growing alike. Siblings that have no watermark yet, are idle, have
     * ended, found nothing to read at their last poll, or whose watermark stood still for ten
     * periodic-watermark intervals (at least a second) are not waited for. Pausing a read changes
     * no result: a record is late downstream only behind its own subtask's watermark, and a paused
     * subtask is not idle ({@link dev.weir.api.time.WatermarkStrategy#withIdleness} timeouts stand
     * still while it waits). The lead is checked on the watermarks sent, so a subtask may read up
     * to one periodic-watermark interval past the drift, and runs freely until its siblings send
     * their first watermark. This is Flink's watermark alignment, on by default for the subtasks of
     * each source; sources are not aligned with each other.
     *
     * @param maxDrift largest lead in event time, rounded up to whole milliseconds; zero turns
     *     alignment off
     * @return this pipeline
     * @throws IllegalArgumentException if {@code maxDrift} is negative
     * @throws NullPointerException if {@code maxDrift} is null
     */
    public Pipeline watermarkAlignment(Duration maxDrift) {
        Objects.requireNonNull(maxDrift, "maxDrift (Duration.ZERO turns alignment off)");
        if (maxDrift.isNegative()) {
            throw new IllegalArgumentException(
                    "watermarkAlignment must not be negative (Duration.ZERO turns it off), got "
                            + maxDrift);
        }
        this.watermarkAlignmentMillis = ceilMillis(maxDrift);
        return this;
    }

    /** {@code duration} in whole milliseconds, rounded up; {@code Long.MAX_VALUE} if larger. */
    private static long ceilMillis(Duration duration) {
        try {
            long millis = duration.toMillis();
            return duration.minusMillis(millis).isZero() ? millis : millis + 1;
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }

    /**
     * Worker threads that run the tasks (default: the number of cores).
     *
     * @param workerThreads size of the job's worker pool
     * @return this pipeline
     */
    public Pipeline workerThreads(int workerThreads) {
        this.workerThreads = workerThreads;
        return this;
    }

    /**
     * Takes checkpoints as {@code config} says (default: none).
     *
     * @param config the checkpoint settings, such as {@code CheckpointConfig.exactlyOnce(...)}
     * @return this pipeline
     */
    public Pipeline checkpointing(CheckpointConfig config) {
        this.checkpoints = Objects.requireNonNull(config, "config");
        return this;
    }

    /**
     * What to do when a task fails (default: with checkpointing, up to 10 restarts 100 ms apart;
     * without, fail at once).
     *
     * @param strategy how often and how soon to restart
     * @return this pipeline
     */
    public Pipeline restartStrategy(RestartStrategy strategy) {
        this.restartStrategy = Objects.requireNonNull(strategy, "strategy");
        return this;
    }

    /**
     * Hears checkpoints, failures and restores.
     *
     * @param listener called on the job's own threads; keep it quick and do not block
     * @return this pipeline
     */
    public Pipeline listener(JobListener listener) {
        this.listener = Objects.requireNonNull(listener, "listener");
        return this;
    }

    /**
     * Starts from a savepoint or checkpoint directory instead of {@code resume}.
     *
     * @param savepoint the directory of the savepoint or checkpoint to restore
     * @return this pipeline
     */
    public Pipeline fromSavepoint(Path savepoint) {
        this.fromSavepoint = Objects.requireNonNull(savepoint, "savepoint");
        return this;
    }

    /**
     * Lets a restore drop state of operators or sources the pipeline no longer has, instead of
     * refusing to start (default false).
     *
     * @param allow true to drop state that matches no source or operator
     * @return this pipeline
     */
    public Pipeline allowNonRestoredState(boolean allow) {
        this.allowNonRestoredState = allow;
        return this;
    }

    /**
     * Local recovery (default on): a restart within this process rebuilds keyed state from the
     * in-memory copy each task took for the checkpoint being restored, instead of decoding the
     * checkpoint files, which makes recovery with large state much faster. Costs the memory of
     * those copies (arrays of references, and values replaced since the newest complete
     * checkpoint). Restores in a new process always read the files.
     *
     * @param enabled false to always read the checkpoint files on restore
     * @return this pipeline
     */
    public Pipeline localRecovery(boolean enabled) {
        this.localRecovery = enabled;
        return this;
    }

    /**
     * Where keyed steps keep their state (default {@link StateBackends#heap()}). A checkpoint can
     * only be restored by the backend that wrote it.
     *
     * @param backend makes the keyed state store of each keyed subtask
     * @return this pipeline
     */
    public Pipeline stateBackend(KeyedStateBackendFactory backend) {
        this.stateBackend = Objects.requireNonNull(backend, "backend");
        return this;
    }

    /**
     * The clock of processing time (default: the system clock): what processing-time timers and
     * windows, periodic watermarks ({@link #autoWatermarkInterval}) and source idleness follow.
     * Tasks read it on their worker threads between steps, so it must be thread-safe; a test passes
     * a clock it moves itself (as {@code PipelineTestDriver} does) to fire timers without waiting.
     * Checkpoint intervals, timeouts and restart delays keep the system's monotonic clock.
     *
     * @param clock the processing-time clock; must be thread-safe
     * @return this pipeline
     */
    public Pipeline processingTimeClock(InstantSource clock) {
        this.processingTimeClock = Objects.requireNonNull(clock, "clock");
        return this;
    }

    /**
     * Seeds the randomness of the runtime (restart jitter) so runs are reproducible.
     *
     * @param seed any value; the same seed gives the same restart jitter
     * @return this pipeline
     */
    public Pipeline seed(long seed) {
        this.seed = seed;
        return this;
    }

    /**
     * Adds a source called {@code name}; each name must be unique in the pipeline.
     *
     * @param <T> the type of the records the source emits
     * @param name the source's name, unique in the pipeline; it keys the source's state in
     *     checkpoints
     * @param source the source to read
     * @return the stream of the source's records, without timestamps
     * @throws IllegalArgumentException if {@code name} is not allowed or already used
     */
    public <T> DataStream<T> source(String name, Source<T> source) {
        Objects.requireNonNull(source, "source");
        StepBuilder step =
                add(claimName(name), StepBuilder.Kind.SOURCE, List.of(), source, null, null);
        return new DataStream<>(this, step);
    }

    /**
     * Adds a source called {@code name} whose records get event time as they are read, as Flink's
     * {@code fromSource(source, watermarks, name)} does: each split has its own timestamp assigner
     * call and watermark generator, so a split read ahead of another does not make the other's
     * records late; the source subtask's watermark is the minimum over its open splits (an ended
     * split stops counting; with {@link WatermarkStrategy#withIdleness} an idle split is left out
     * until it has records again). Each split's watermark is checkpointed with its position, so a
     * restore neither moves the watermark back nor ahead.
     *
     * <p>Prefer this to {@link DataStream#assignTimestampsAndWatermarks} right after a source: it
     * is per split and costs no extra step. The strategy must have a timestamp assigner ({@link
     * WatermarkStrategy#withTimestampAssigner}); Weir's sources carry no record timestamps of their
     * own.
     *
     * @param <T> the type of the records the source emits
     * @param name the source's name, unique in the pipeline; it keys the source's state in
     *     checkpoints
     * @param source the source to read
     * @param watermarks the timestamp assigner and watermark generator applied per split
     * @return the stream of the source's records, with timestamps and watermarks
     * @throws IllegalArgumentException if {@code watermarks} has no timestamp assigner
     */
    public <T> DataStream<T> source(
            String name, Source<T> source, WatermarkStrategy<T> watermarks) {
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(watermarks, "watermarks");
        if (watermarks.timestampAssigner() == null) {
            throw new IllegalArgumentException(
                    "the watermark strategy of source '"
                            + name
                            + "' has no timestamp assigner; give it one with"
                            + " withTimestampAssigner((record, previous) -> time of record),"
                            + " since Weir's sources carry no record timestamps of their own");
        }
        StepBuilder step =
                add(claimName(name), StepBuilder.Kind.SOURCE, List.of(), source, null, null);
        step.watermarks = watermarks;
        return new DataStream<>(this, step);
    }

    /**
     * Refuses to start unless the end-to-end guarantee is at least {@code guarantee}; the refusal
     * names the limiting component and what to change.
     *
     * @param guarantee the least end-to-end guarantee the job must have
     * @return this pipeline
     */
    public Pipeline requireGuarantee(Guarantee guarantee) {
        this.required = Objects.requireNonNull(guarantee, "guarantee");
        return this;
    }

    /**
     * The end-to-end guarantee: the minimum over every source, the checkpointing mode and every
     * sink, with the component that limits it.
     *
     * @return the guarantee and what each source, the checkpointing mode and each sink offers
     */
    public GuaranteeReport guarantee() {
        List<GuaranteeReport.Component> components = new ArrayList<>();
        for (StepBuilder step : steps) {
            if (step.kind == StepBuilder.Kind.SOURCE) {
                Source<?> source = (Source<?>) step.payload;
                Guarantee g = source.guarantee();
                components.add(
                        new GuaranteeReport.Component(
                                "source '" + step.name + "' (" + source.kind() + ")",
                                g,
                                g == Guarantee.EXACTLY_ONCE
                                        ? ""
                                        : "it cannot replay records after a failure",
                                g == Guarantee.EXACTLY_ONCE
                                        ? ""
                                        : "use a replayable source (the durable log, files, Kafka)"));
            }
        }
        CheckpointingMode mode = checkpoints.mode();
        components.add(
                new GuaranteeReport.Component(
                        "checkpointing mode " + mode,
                        mode.guarantee(),
                        switch (mode) {
                            case EXACTLY_ONCE -> "";
                            case AT_LEAST_ONCE ->
                                    "unaligned barriers let records count twice after a failure";
                            case NONE -> "without checkpoints a failure loses the state";
                        },
                        mode == CheckpointingMode.EXACTLY_ONCE
                                ? ""
                                : "use Pipeline.checkpointing(CheckpointConfig.exactlyOnce(...))"));
        for (StepBuilder step : steps) {
            if (step.kind == StepBuilder.Kind.SINK) {
                Sink<?> sink = (Sink<?>) step.payload;
                Guarantee g = sink.guarantee();
                String limitation = sink.limitation();
                int split = limitation.indexOf("; ");
                components.add(
                        new GuaranteeReport.Component(
                                "sink '" + step.name + "' (" + sink.kind() + ")",
                                g,
                                split < 0 ? limitation : limitation.substring(0, split),
                                split < 0 ? "" : limitation.substring(split + 2)));
            }
        }
        Guarantee end = Guarantee.EXACTLY_ONCE;
        for (GuaranteeReport.Component component : components) {
            end = end.min(component.guarantee());
        }
        return new GuaranteeReport(end, List.copyOf(components));
    }

    /**
     * Warnings about this pipeline's guarantee, such as a source that cannot replay; also logged
     * when the job starts.
     *
     * @return one message per problem, empty if there is none
     */
    public List<String> warnings() {
        List<String> warnings = new ArrayList<>();
        for (StepBuilder step : steps) {
            if (step.kind == StepBuilder.Kind.SOURCE
                    && !((Source<?>) step.payload).isReplayable()) {
                warnings.add(
                        "source '"
                                + step.name
                                + "' ("
                                + ((Source<?>) step.payload).kind()
                                + ") cannot replay: records in flight when a failure happens are"
                                + " lost, so this pipeline is at-most-once end to end; use a"
                                + " replayable source (the durable log, files, Kafka) for"
                                + " exactly-once");
            }
        }
        return warnings;
    }

    /**
     * Builds the job and starts it on Weir's in-process runtime; returns at once.
     *
     * @return a handle to wait for, cancel or checkpoint the job
     * @throws IllegalStateException if the guarantee is below {@link #requireGuarantee} or settings
     *     conflict
     * @throws IllegalArgumentException if a parallelism is above {@link #maxParallelism}
     */
    public JobHandle start() {
        return start(LocalRunner.INSTANCE);
    }

    /**
     * Builds the job and starts it on {@code runner}; returns at once. Refuses a pipeline below
     * {@link #requireGuarantee}, or whose settings cannot work together, naming what to change.
     *
     * @param runner the runtime to run the job on
     * @return a handle to wait for, cancel or checkpoint the job
     * @throws IllegalStateException if the guarantee is below {@link #requireGuarantee} or settings
     *     conflict
     * @throws IllegalArgumentException if a parallelism is above {@link #maxParallelism}
     */
    public JobHandle start(Runner runner) {
        Objects.requireNonNull(runner, "runner");
        GuaranteeReport report = guarantee();
        if (required != null && !report.guarantee().satisfies(required)) {
            throw new IllegalStateException(
                    "pipeline '"
                            + name
                            + "' requires "
                            + required
                            + " but its "
                            + report.describe()
                            + "; fix that component, or lower Pipeline.requireGuarantee(...)");
        }
        PipelinePlan plan = plan();
        checkParallelism();
        checkTransactionTimeouts(plan.settings().restartStrategy());
        LOG.info("pipeline '{}': {}", name, report.describe());
        for (String warning : warnings()) {
            LOG.warn(warning);
        }
        return runner.start(plan);
    }

    /**
     * The pipeline as built so far, with its settings: what a {@link Runner} runs.
     *
     * @return the steps and settings as they are now
     */
    public PipelinePlan plan() {
        List<Step> built = new ArrayList<>(steps.size());
        for (StepBuilder step : steps) {
            built.add(step.build());
        }
        boolean checkpointing = checkpoints.mode() != CheckpointingMode.NONE;
        RestartStrategy restart =
                restartStrategy != null
                        ? restartStrategy
                        : checkpointing
                                ? RestartStrategy.fixedDelay(10, Duration.ofMillis(100))
                                : RestartStrategy.none();
        return new PipelinePlan(
                name,
                built,
                new PipelinePlan.Settings(
                        parallelism,
                        maxParallelism,
                        batchSize,
                        channelCapacityBatches,
                        channelCapacityBytes,
                        workerThreads,
                        maxIdleParkNanos,
                        autoWatermarkMillis,
                        watermarkAlignmentMillis,
                        checkpoints,
                        restart,
                        listener,
                        fromSavepoint,
                        allowNonRestoredState,
                        seed,
                        localRecovery,
                        required,
                        stateBackend,
                        processingTimeClock));
    }

    /**
     * Runs the job to completion on Weir's in-process runtime.
     *
     * @return what the job reports once it has finished its input or stopped with a savepoint
     * @throws InterruptedException if this thread is interrupted while waiting; the job keeps
     *     running
     * @throws JobFailedException if the job failed; its cause is the root cause
     */
    public JobResult run() throws InterruptedException {
        return start().await();
    }

    /**
     * Runs the job to completion on {@code runner}.
     *
     * @param runner the runtime to run the job on
     * @return what the job reports once it has finished its input or stopped with a savepoint
     * @throws JobFailedException if the job failed; its cause is the root cause
     * @throws InterruptedException if this thread is interrupted while waiting; the job keeps
     *     running
     */
    public JobResult run(Runner runner) throws InterruptedException {
        return start(runner).await();
    }

    /**
     * A sink transaction must outlive the longest time Weir may still commit it: it opens at one
     * barrier (or the first record after it), is pre-committed at the next one (a checkpoint
     * interval later), and is committed once that checkpoint completes (within its timeout) or,
     * after a failure, by the restarted job (after the longest restart delay). Otherwise the
     * external system could abort it first.
     */
    private void checkTransactionTimeouts(RestartStrategy restart) {
        if (checkpoints.mode() == CheckpointingMode.NONE) {
            return;
        }
        Duration needed =
                checkpoints.interval().plus(checkpoints.timeout()).plus(restart.maxDelay());
        for (StepBuilder step : steps) {
            if (step.kind == StepBuilder.Kind.SINK
                    && step.payload instanceof TwoPhaseCommitSink<?, ?> sink
                    && !sink.transactionTimeout().isZero()
                    && sink.transactionTimeout().compareTo(needed) <= 0) {
                String setting = sink.transactionTimeoutSetting();
                String named = setting.isEmpty() ? "" : " (" + setting + ")";
                throw new IllegalStateException(
                        "sink '"
                                + step.name
                                + "' has a transaction timeout of "
                                + sink.transactionTimeout()
                                + named
                                + ", not more than the checkpoint interval "
                                + checkpoints.interval()
                                + " plus the checkpoint timeout "
                                + checkpoints.timeout()
                                + " plus the longest restart delay "
                                + restart.maxDelay()
                                + " = "
                                + needed
                                + "; the external system could abort a transaction Weir still"
                                + " has to commit. Raise the sink's transaction timeout"
                                + named
                                + " or lower CheckpointConfig interval / timeout or the restart"
                                + " delay");
            }
        }
    }

    private void checkParallelism() {
        for (StepBuilder step : steps) {
            if (step.parallelism > maxParallelism) {
                throw new IllegalArgumentException(
                        "operator '"
                                + step.name
                                + "' has parallelism "
                                + step.parallelism
                                + " above maxParallelism "
                                + maxParallelism
                                + "; raise Pipeline.maxParallelism(...) or lower the"
                                + " parallelism");
            }
        }
        if (parallelism > maxParallelism) {
            throw new IllegalArgumentException(
                    "parallelism "
                            + parallelism
                            + " is above maxParallelism "
                            + maxParallelism
                            + "; raise Pipeline.maxParallelism(...)");
        }
    }

    /** Adds a step; its id is its position. */
    StepBuilder add(
            String stepName,
            StepBuilder.Kind kind,
            List<StepBuilder> inputs,
            Object payload,
            KeySelector<?, ?> keySelector,
            OutputTag<?> tag) {
        StepBuilder step =
                new StepBuilder(steps.size(), stepName, kind, inputs, payload, keySelector, tag);
        steps.add(step);
        return step;
    }

    String claimName(String name) {
        validName(name, "operator");
        if (!names.add(name)) {
            throw new IllegalArgumentException(
                    "the name '"
                            + name
                            + "' is used twice in pipeline '"
                            + this.name
                            + "'; names identify state in checkpoints, so each must be unique");
        }
        return name;
    }

    String autoName(String kind) {
        String candidate = kind + "-" + steps.size();
        while (names.contains(candidate)) {
            candidate = candidate + "'";
        }
        names.add(candidate);
        return candidate;
    }

    private static String validName(String name, String what) {
        Objects.requireNonNull(name, what + " name");
        if (!name.matches("[A-Za-z0-9_.-]{1,100}")) {
            throw new IllegalArgumentException(
                    what
                            + " name '"
                            + name
                            + "' is not allowed; use 1 to 100 letters, digits, '-', '_' or '.'");
        }
        return name;
    }
}
