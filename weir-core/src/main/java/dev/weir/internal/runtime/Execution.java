package dev.weir.internal.runtime;

import dev.weir.api.checkpoint.CheckpointStats;
import dev.weir.api.checkpoint.CheckpointingMode;
import dev.weir.api.source.Source;
import dev.weir.api.source.SourceContext;
import dev.weir.api.state.KeyGroups;
import dev.weir.api.state.KeyedStateBackend;
import dev.weir.api.state.KeyedStateBackendFactory;
import dev.weir.api.time.WatermarkStrategy;
import dev.weir.internal.checkpoint.RestoredCheckpoint;
import dev.weir.internal.graph.EdgeMode;
import dev.weir.internal.graph.JobGraph;
import dev.weir.internal.graph.JobGraph.ChainNode;
import dev.weir.internal.graph.JobGraph.Edge;
import dev.weir.internal.graph.JobGraph.Vertex;
import dev.weir.internal.graph.Node;
import dev.weir.internal.graph.Node.OperatorNode;
import dev.weir.internal.graph.Node.Partitioning;
import dev.weir.internal.operators.CommitTimes;
import dev.weir.internal.operators.IdempotentSinkOperator;
import dev.weir.internal.operators.NullCheckingOutput;
import dev.weir.internal.operators.OperatorContext;
import dev.weir.internal.operators.Output;
import dev.weir.internal.operators.ProcessingTimeService;
import dev.weir.internal.operators.RecordTime;
import dev.weir.internal.operators.SinkOperator;
import dev.weir.internal.operators.StreamOperator;
import dev.weir.internal.operators.TwoPhaseCommitSinkOperator;
import dev.weir.internal.operators.UserCodeException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One attempt at running a job graph: its tasks, channels and worker threads.
 *
 * <p>Built and started by the job's driver thread. Ends when every task is done, when a task fails
 * (the first failure is kept as the cause and every worker stops), or on {@link #cancel}. {@link
 * #awaitTermination} joins the workers and then closes every task, so no thread outlives it.
 */
public final class Execution {
    private static final Logger LOG = LoggerFactory.getLogger(Execution.class);

    private final RuntimeConfig config;
    private final JobSettings settings;
    private final CheckpointCoordinator coordinator;
    private final RestoredCheckpoint restored;

    /** Where this attempt binds its counters, or null (a job driven without metrics). */
    private final RuntimeMetrics metrics;

    /** True if some step gives records event time: edges then carry a timestamp column. */
    private final boolean eventTime;

    /** What sinks learn of the restore (see {@link OperatorContext#restoredCheckpointId}). */
    private final long restoredCheckpointId;

    private final List<Task> tasks = new ArrayList<>();

    /** Every chain's steps with their counters, bound to {@link #metrics} once the tasks exist. */
    private final List<StepCounters> stepCounters = new ArrayList<>();

    private final List<Thread> threads = new ArrayList<>();
    private final AtomicInteger remaining = new AtomicInteger();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final CountDownLatch finished = new CountDownLatch(1);
    private volatile boolean stopping;
    private volatile boolean cancelled;

    /**
     * Builds every task of {@code graph}, restoring {@code restored} if not null; nothing runs
     * until {@link #start}. {@code freshBaseline} is what sinks are told when nothing is restored:
     * 0 if the job asked to resume, -1 if it started fresh by request.
     */
    public Execution(
            JobGraph graph,
            JobSettings settings,
            RestoredCheckpoint restored,
            long freshBaseline,
            Consumer<CheckpointStats> statsSink) {
        this(graph, settings, restored, freshBaseline, statsSink, null);
    }

    /** As above, binding the attempt's counters into {@code metrics} (if not null). */
    Execution(
            JobGraph graph,
            JobSettings settings,
            RestoredCheckpoint restored,
            long freshBaseline,
            Consumer<CheckpointStats> statsSink,
            RuntimeMetrics metrics) {
        this.metrics = metrics;
        this.config = settings.runtime();
        this.settings = settings;
        this.restored = restored;
        this.restoredCheckpointId = restored != null ? restored.id() : freshBaseline;
        this.coordinator =
                settings.checkpoints().mode() == CheckpointingMode.NONE
                        ? null
                        : new CheckpointCoordinator(
                                config.jobName(),
                                config.maxParallelism(),
                                settings.checkpoints(),
                                settings.store(),
                                settings.listener(),
                                statsSink,
                                settings.localState(),
                                cause -> fail(null, cause),
                                settings.synchronousCheckpointIo(),
                                restored != null ? restored.id() : 0);
        if (restored != null) {
            RestoreAssignment.validate(graph, restored, config, settings.allowNonRestoredState());
        }
        this.eventTime = graph.usesEventTime();
        SpscChannel[][][] channels = createChannels(graph);
        for (Vertex vertex : graph.vertices()) {
            SourceAlignment aligned = alignment(vertex);
            for (int subtask = 0; subtask < vertex.parallelism(); subtask++) {
                Task task = buildTask(vertex, subtask, channels, settings.clock()::nanoTime);
                if (aligned != null && task.hasOutputs()) {
                    task.alignWith(aligned, subtask);
                }
                tasks.add(task);
            }
        }
        if (metrics != null) {
            bindMetrics();
        }
        if (coordinator != null) {
            coordinator.attach(tasks);
        }
        remaining.set(tasks.size());
    }

    /** Triggers a checkpoint, or a savepoint into {@code savepointParent} if not null. */
    public CompletableFuture<CheckpointStats> triggerCheckpoint(Path savepointParent) {
        if (coordinator == null) {
            return CompletableFuture.failedFuture(
                    new IllegalStateException(
                            "checkpointing is off for job '"
                                    + config.jobName()
                                    + "'; set Pipeline.checkpointing(CheckpointConfig...)"));
        }
        return coordinator.trigger(savepointParent);
    }

    /** The savepoint a stop-with-savepoint took in this execution, once complete; else null. */
    public Path stopSavepoint() {
        return coordinator == null ? null : coordinator.stopSavepoint();
    }

    /**
     * Starts the savepoint of a stop-with-savepoint: no checkpoint starts after it (see {@link
     * CheckpointCoordinator#triggerLast}).
     */
    public CompletableFuture<CheckpointStats> triggerLastSavepoint(Path savepointParent) {
        if (coordinator == null) {
            return triggerCheckpoint(savepointParent); // fails: checkpointing is off
        }
        return coordinator.triggerLast(savepointParent);
    }

    /**
     * Waits until every task that has not finished has heard that checkpoint {@code id} completed
     * (so its sinks committed the output of it and of every checkpoint before), the execution
     * stopped, or {@code timeoutNanos} passed. Returns false on a timeout.
     */
    public boolean awaitNotified(long id, long timeoutNanos) {
        long deadline = System.nanoTime() + timeoutNanos;
        while (!stopping) {
            boolean all = true;
            for (Task task : tasks) {
                if (!task.isDone() && task.notifiedThrough() < id) {
                    all = false;
                    break;
                }
            }
            if (all) {
                return true;
            }
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
        }
        return true;
    }

    /** channels[edge][producer subtask][consumer subtask]; null where the edge does not connect. */
    private SpscChannel[][][] createChannels(JobGraph graph) {
        int count = 0;
        for (Edge edge : graph.edges()) {
            count +=
                    edge.mode() == EdgeMode.POINTWISE
                            ? edge.from().parallelism()
                            : edge.from().parallelism() * edge.to().parallelism();
        }
        long capacityBytes =
                config.channelCapacityBytes() > 0
                        ? config.channelCapacityBytes()
                        : Math.max(
                                256 * 1024,
                                Runtime.getRuntime().maxMemory() / 4 / Math.max(1, count));
        SpscChannel[][][] channels = new SpscChannel[graph.edges().size()][][];
        for (Edge edge : graph.edges()) {
            int producers = edge.from().parallelism();
            int consumers = edge.to().parallelism();
            channels[edge.index()] = new SpscChannel[producers][consumers];
            for (int from = 0; from < producers; from++) {
                for (int to = 0; to < consumers; to++) {
                    if (edge.mode() != EdgeMode.POINTWISE || from == to) {
                        String name =
                                edge.from().name()
                                        + "#"
                                        + from
                                        + "->"
                                        + edge.to().name()
                                        + "#"
                                        + to;
                        channels[edge.index()][from][to] =
                                new SpscChannel(
                                        name, config.channelCapacityBatches(), capacityBytes);
                        if (metrics != null) {
                            metrics.bindChannel(
                                    edge.from().name() + "#" + from,
                                    edge.to().name() + "#" + to,
                                    channels[edge.index()][from][to]);
                        }
                    }
                }
            }
        }
        return channels;
    }

    /**
     * The alignment of {@code vertex}'s subtasks if it is a source of several subtasks, some step
     * gives records event time (without it no watermark is ever sent, and each poll would publish
     * one for nothing) and the job aligns sources ({@link SourceAlignment}); else null. A subtask
     * whose siblings' watermarks stood still for the stall time (ten periodic-watermark intervals,
     * at least a second) stops waiting for them.
     */
    private SourceAlignment alignment(Vertex vertex) {
        long drift = config.watermarkAlignmentMillis();
        if (!eventTime || !vertex.isSource() || vertex.parallelism() < 2 || drift <= 0) {
            return null;
        }
        long stallMillis = Math.max(1_000, 10 * config.autoWatermarkMillis());
        return new SourceAlignment(vertex.parallelism(), drift, stallMillis * 1_000_000);
    }

    private Task buildTask(
            Vertex vertex, int subtask, SpscChannel[][][] channels, LongSupplier nanoClock) {
        String taskName = vertex.name() + "#" + subtask;
        TaskBuilder builder = new TaskBuilder(vertex, subtask, channels);
        Output headOutput = builder.build(vertex.head());
        boolean blocking = isBlocking(vertex.head());
        TaskRestore restore =
                restored == null
                        ? TaskRestore.NONE
                        : RestoreAssignment.forTask(
                                vertex,
                                subtask,
                                builder.contexts,
                                restored,
                                config,
                                settings.stateBackend());
        CheckpointingMode mode = settings.checkpoints().mode();
        if (vertex.isSource()) {
            Node.SourceNode sourceNode = (Node.SourceNode) vertex.head().node();
            @SuppressWarnings("unchecked")
            Source<Object> source = (Source<Object>) sourceNode.source();
            List<String> all = source.splits(vertex.parallelism());
            List<String> mine = new ArrayList<>();
            for (int i = subtask; i < all.size(); i += vertex.parallelism()) {
                mine.add(all.get(i));
            }
            SourceContext context = sourceContext(subtask, vertex.parallelism(), nanoClock);
            @SuppressWarnings("unchecked")
            WatermarkStrategy<Object> watermarks =
                    (WatermarkStrategy<Object>) sourceNode.watermarks();
            SourceDriver.SourceTime sourceTime =
                    watermarks == null
                            ? null
                            : new SourceDriver.SourceTime(
                                    headOutput,
                                    sourceNode.name(),
                                    watermarks,
                                    builder.time,
                                    builder.timeService,
                                    config.autoWatermarkMillis());
            return new Task(
                    new Task.Parts(
                            tasks.size(),
                            taskName,
                            sourceNode.name(),
                            config.batchSize(),
                            new SourceDriver(source, mine, context, sourceTime),
                            NullCheckingOutput.forSource(sourceNode.name(), headOutput),
                            null,
                            null,
                            builder.operators,
                            builder.contexts,
                            builder.writers,
                            coordinator,
                            mode,
                            restore,
                            settings.localState(),
                            builder.time,
                            builder.timeService,
                            blocking,
                            nanoClock));
        }
        List<SpscChannel> inputs = new ArrayList<>();
        for (Edge edge : vertex.inputs()) {
            for (SpscChannel[] fromProducer : channels[edge.index()]) {
                if (fromProducer[subtask] != null) {
                    inputs.add(fromProducer[subtask]);
                }
            }
        }
        return new Task(
                new Task.Parts(
                        tasks.size(),
                        taskName,
                        "",
                        config.batchSize(),
                        null,
                        null,
                        new InputGate(inputs.toArray(new SpscChannel[0])),
                        headOutput,
                        builder.operators,
                        builder.contexts,
                        builder.writers,
                        coordinator,
                        mode,
                        restore,
                        settings.localState(),
                        builder.time,
                        builder.timeService,
                        blocking,
                        nanoClock));
    }

    /** True if a step of the chain may block its thread (a blocking step or sink). */
    private static boolean isBlocking(ChainNode node) {
        if (node.node() instanceof OperatorNode operator && operator.blocking()) {
            return true;
        }
        for (ChainNode child : node.chained()) {
            if (isBlocking(child)) {
                return true;
            }
        }
        return false;
    }

    private static SourceContext sourceContext(int subtask, int parallelism, LongSupplier clock) {
        return new SourceContext() {
            @Override
            public int subtaskIndex() {
                return subtask;
            }

            @Override
            public int parallelism() {
                return parallelism;
            }

            @Override
            public long nanoTime() {
                return clock.getAsLong();
            }
        };
    }

    /** Creates the operators of one task's chain and wires their outputs. */
    private final class TaskBuilder {
        final Vertex vertex;
        final int subtask;
        final SpscChannel[][][] channels;
        final List<StreamOperator> operators = new ArrayList<>();
        final List<OperatorContext> contexts = new ArrayList<>();
        final List<RecordWriter> writers = new ArrayList<>();
        final RecordTime time = new RecordTime();
        final ProcessingTimeService timeService =
                new ProcessingTimeService(settings.clock()::millis);

        TaskBuilder(Vertex vertex, int subtask, SpscChannel[][][] channels) {
            this.vertex = vertex;
            this.subtask = subtask;
            this.channels = channels;
        }

        /** Returns the output that feeds {@code node} (for a source: the source's own output). */
        Output build(ChainNode node) {
            StreamOperator operator = null;
            int slot = -1;
            if (node.node() instanceof OperatorNode operatorNode) {
                operator = operatorNode.factory().create();
                operators.add(operator);
                contexts.add(null);
                slot = operators.size() - 1;
            }
            // Main output (tag null) and side outputs, each to chained steps and writers.
            java.util.Map<String, List<Output>> byTag = new java.util.LinkedHashMap<>();
            byTag.put(null, new ArrayList<>());
            for (ChainNode child : node.chained()) {
                byTag.computeIfAbsent(child.inputTag(), t -> new ArrayList<>()).add(build(child));
            }
            for (Edge edge : node.outputs()) {
                RecordWriter writer = writerFor(edge);
                writers.add(writer);
                byTag.computeIfAbsent(edge.tag(), t -> new ArrayList<>()).add(writer);
            }
            Output output = combine(byTag.remove(null));
            java.util.Map<String, Output> sideOutputs = new java.util.HashMap<>();
            byTag.forEach((tag, outputs) -> sideOutputs.put(tag, combine(outputs)));
            LongSupplier out = recordsOut(output, sideOutputs.values());
            if (node.node() instanceof Node.SourceNode) {
                stepCounters.add(
                        new StepCounters(node.node().name(), tasks.size(), subtask, null, out));
            }
            if (operator == null) {
                return output;
            }
            KeyedStateBackend keyed =
                    ((OperatorNode) node.node()).partitioning() == Partitioning.KEYED
                            ? createBackend(node.node().name())
                            : null;
            contexts.set(
                    slot,
                    new OperatorContext(
                            config.jobName(),
                            node.node().name(),
                            subtask,
                            vertex.parallelism(),
                            output,
                            keyed,
                            keyed == null ? null : settings.stateBackend().id(),
                            coordinator != null,
                            restoredCheckpointId,
                            time,
                            timeService,
                            java.util.Map.copyOf(sideOutputs),
                            config.autoWatermarkMillis(),
                            settings.store() == null ? "" : settings.store().instanceId(),
                            settings.store() == null
                                    ? null
                                    : settings.store().directory().toAbsolutePath().normalize()));
            ChainedOutput input = new ChainedOutput(operator, output);
            boolean sink =
                    operator instanceof SinkOperator
                            || operator instanceof TwoPhaseCommitSinkOperator
                            || operator instanceof IdempotentSinkOperator;
            stepCounters.add(
                    new StepCounters(
                            node.node().name(),
                            tasks.size(), // the index of the task being built
                            subtask,
                            input,
                            sink ? input::records : out));
            if (operator instanceof CommitTimes.Timed timed && metrics != null) {
                CommitTimes times = timed.commitTimes();
                metrics.bindSink(
                        node.node().name(),
                        subtask,
                        times::commits,
                        times::commitNanos,
                        times::lastCommitNanos);
            }
            return input;
        }

        /** Records into {@code main} plus into each side output that somebody reads. */
        private LongSupplier recordsOut(Output main, java.util.Collection<Output> sides) {
            List<LongSupplier> counts = new ArrayList<>();
            counts.add(recordsInto(main));
            for (Output side : sides) {
                counts.add(recordsInto(side));
            }
            LongSupplier[] all = counts.toArray(new LongSupplier[0]);
            return () -> {
                long sum = 0;
                for (LongSupplier count : all) {
                    sum += count.getAsLong();
                }
                return sum;
            };
        }

        /** What counts the records into {@code output} (each output of a fan-out sees them all). */
        private LongSupplier recordsInto(Output output) {
            if (output instanceof ChainedOutput chained) {
                return chained::records;
            }
            if (output instanceof RecordWriter writer) {
                return writer::records;
            }
            if (output instanceof FanOut fanOut) {
                return recordsInto(fanOut.first());
            }
            return () -> 0; // nobody reads it
        }

        private KeyedStateBackend createBackend(String step) {
            int parallelism = vertex.parallelism();
            int maxParallelism = config.maxParallelism();
            KeyedStateBackend previous =
                    settings.localState() == null
                            ? null
                            : settings.localState().takePrevious(step, subtask, parallelism);
            return settings.stateBackend()
                    .create(
                            new KeyedStateBackendFactory.Context() {
                                @Override
                                public String stepName() {
                                    return step;
                                }

                                @Override
                                public int subtaskIndex() {
                                    return subtask;
                                }

                                @Override
                                public int parallelism() {
                                    return parallelism;
                                }

                                @Override
                                public int maxParallelism() {
                                    return maxParallelism;
                                }

                                @Override
                                public int firstKeyGroup() {
                                    return KeyGroups.rangeStart(
                                            subtask, maxParallelism, parallelism);
                                }

                                @Override
                                public int lastKeyGroup() {
                                    return KeyGroups.rangeEnd(subtask, maxParallelism, parallelism);
                                }

                                @Override
                                public KeyedStateBackend previousAttempt() {
                                    return previous;
                                }
                            });
        }

        private Output combine(List<Output> outputs) {
            return outputs.isEmpty()
                    ? Output.NONE
                    : outputs.size() == 1
                            ? outputs.get(0)
                            : new FanOut(outputs.toArray(new Output[0]));
        }

        private RecordWriter writerFor(Edge edge) {
            SpscChannel[] targets = channels[edge.index()][subtask];
            if (edge.mode() == EdgeMode.POINTWISE) {
                targets = new SpscChannel[] {targets[subtask]};
            }
            return new RecordWriter(
                    edge.to().name(),
                    edge.mode(),
                    edge.keySelector(),
                    config.maxParallelism(),
                    config.batchSize(),
                    targets,
                    eventTime ? time : null);
        }
    }

    /**
     * Binds the attempt's counters (docs/design/010-metrics.md): a step's records in are its
     * chained input's (plus, for the head of a keyed vertex, what the task handed it from keyed
     * batches; for a source, what it emitted); its records out are what the outputs it feeds
     * received.
     */
    private void bindMetrics() {
        for (Task task : tasks) {
            metrics.bindTask(task);
            if (task.sourceDriver() != null) {
                SourceDriver source = task.sourceDriver();
                String name = task.name();
                metrics.bindSource(
                        task.sourceName(),
                        Integer.parseInt(name.substring(name.lastIndexOf('#') + 1)),
                        source::lag,
                        task::alignmentPausedNanos);
            }
        }
        for (StepCounters step : stepCounters) {
            Task task = tasks.get(step.taskIndex());
            LongSupplier in;
            if (step.input() == null) {
                in = step.out(); // a source: what it read is what it emitted
            } else if (task.isKeyedHead(step.input().operator())) {
                ChainedOutput head = step.input();
                in = () -> head.records() + task.keyedRecordsIn();
            } else {
                in = step.input()::records;
            }
            metrics.bindStep(step.name(), step.subtask(), in, step.out());
        }
    }

    /** One step of a chain: the output feeding it (null for a source) and its records out. */
    private record StepCounters(
            String name, int taskIndex, int subtask, ChainedOutput input, LongSupplier out) {}

    /**
     * Starts the worker threads: cooperative tasks are spread round-robin in graph order over the
     * configured workers, which help each other; each blocking task gets a thread of its own and is
     * never run by another worker.
     */
    public void start() {
        List<Task> cooperative = new ArrayList<>();
        List<Task> blocking = new ArrayList<>();
        for (Task task : tasks) {
            (task.isBlocking() ? blocking : cooperative).add(task);
        }
        int workerCount = Math.min(config.workerThreads(), Math.max(1, cooperative.size()));
        List<List<Task>> assignment = new ArrayList<>();
        for (int i = 0; i < workerCount; i++) {
            assignment.add(new ArrayList<>());
        }
        for (int i = 0; i < cooperative.size(); i++) {
            assignment.get(i % workerCount).add(cooperative.get(i));
        }
        for (int i = 0; i < workerCount && !cooperative.isEmpty(); i++) {
            List<Task> others = new ArrayList<>(cooperative);
            others.removeAll(assignment.get(i));
            addThread(
                    new Worker(this, assignment.get(i), others, config.maxIdleParkNanos()),
                    "worker-" + i);
        }
        for (Task task : blocking) {
            addThread(
                    new Worker(this, List.of(task), List.of(), config.maxIdleParkNanos()),
                    "blocking-" + task.name());
        }
        if (tasks.isEmpty()) {
            finished.countDown();
        }
        for (Thread thread : threads) {
            thread.start();
        }
        if (coordinator != null) {
            coordinator.start();
        }
    }

    private void addThread(Worker worker, String name) {
        Thread thread = new Thread(worker, "weir-" + config.jobName() + "-" + name);
        thread.setDaemon(true);
        threads.add(thread);
    }

    /** The tasks, in graph order (for a job driven step by step). */
    List<Task> tasks() {
        return tasks;
    }

    boolean isStopping() {
        return stopping;
    }

    void taskDone(Task task) {
        LOG.debug("task {} done", task.name());
        if (remaining.decrementAndGet() == 0) {
            finished.countDown();
        }
    }

    /** Records the first failure and stops every worker. */
    void fail(Task task, Throwable cause) {
        if (failure.compareAndSet(null, cause)) {
            LOG.debug("task {} failed", task == null ? "?" : task.name(), cause);
        }
        stopping = true;
        finished.countDown();
    }

    /** Stops every worker; {@link #awaitTermination} then reports cancellation. */
    public void cancel() {
        cancelled = true;
        stopping = true;
        finished.countDown();
    }

    public boolean isCancelled() {
        return cancelled;
    }

    /**
     * Waits until the execution ends, joins its threads and closes its tasks. Returns null on
     * success, else the failure (the user's exception where user code failed).
     */
    public Throwable awaitTermination() throws InterruptedException {
        finished.await();
        stopping = true;
        for (Thread thread : threads) {
            thread.join();
        }
        Throwable cause = failure.get();
        if (coordinator != null) {
            // A failed or cancelled attempt's checkpoints in flight can never complete: abandon
            // their writes instead of finishing them before the restart can begin.
            coordinator.stop(cause != null || cancelled);
        }
        boolean restartLikely = cause != null && !cancelled;
        for (Task task : tasks) {
            try {
                task.close(restartLikely);
            } catch (Exception e) {
                if (cause == null) {
                    cause = e;
                } else if (cause != e) {
                    cause.addSuppressed(e);
                }
            }
        }
        return cause == null ? null : UserCodeException.unwrap(cause);
    }
}
