package dev.weir.api;

import dev.weir.api.checkpoint.CheckpointConfig;
import dev.weir.api.checkpoint.CheckpointingMode;
import dev.weir.api.source.Source;
import dev.weir.internal.checkpoint.CheckpointStore;
import dev.weir.internal.graph.Node;
import dev.weir.internal.runtime.JobSettings;
import dev.weir.internal.runtime.LocalJob;
import dev.weir.internal.runtime.RuntimeConfig;
import java.nio.file.Path;
import java.time.Duration;
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
 * the number of cores). Not thread-safe while being built; {@link #start} may be called more than
 * once, each call running an independent job.
 */
public final class Pipeline {
    private static final Logger LOG = LoggerFactory.getLogger(Pipeline.class);
    private final String name;
    private final List<Node> nodes = new ArrayList<>();
    private final Set<String> names = new HashSet<>();
    private int parallelism = 1;
    private int maxParallelism = 128;
    private int batchSize = 1024;
    private int channelCapacityBatches = 64;
    private int workerThreads = Runtime.getRuntime().availableProcessors();
    private long maxIdleParkNanos = 200_000;
    private CheckpointConfig checkpoints = CheckpointConfig.none();
    private RestartStrategy restartStrategy;
    private JobListener listener = new JobListener() {};
    private Path fromSavepoint;
    private boolean allowNonRestoredState;
    private long seed = 42;

    private Pipeline(String name) {
        this.name = validName(name, "pipeline");
    }

    /** Starts building a pipeline called {@code name} (letters, digits, '-', '_', '.'). */
    public static Pipeline create(String name) {
        return new Pipeline(name);
    }

    public String name() {
        return name;
    }

    /** Default parallelism of every operator that sets none (default 1). */
    public Pipeline parallelism(int parallelism) {
        this.parallelism = parallelism;
        return this;
    }

    /**
     * Number of key groups (default 128): the most subtasks a keyed operator can ever have,
     * including after restoring a savepoint at a new parallelism.
     */
    public Pipeline maxParallelism(int maxParallelism) {
        this.maxParallelism = maxParallelism;
        return this;
    }

    /** Records per batch sent between tasks (default 1024). */
    public Pipeline batchSize(int batchSize) {
        this.batchSize = batchSize;
        return this;
    }

    /** Batches one channel holds before its producer is held back (default 64). */
    public Pipeline channelCapacityBatches(int channelCapacityBatches) {
        this.channelCapacityBatches = channelCapacityBatches;
        return this;
    }

    /** Worker threads that run the tasks (default: the number of cores). */
    public Pipeline workerThreads(int workerThreads) {
        this.workerThreads = workerThreads;
        return this;
    }

    /** Takes checkpoints as {@code config} says (default: none). */
    public Pipeline checkpointing(CheckpointConfig config) {
        this.checkpoints = Objects.requireNonNull(config, "config");
        return this;
    }

    /**
     * What to do when a task fails (default: with checkpointing, up to 10 restarts 100 ms apart;
     * without, fail at once).
     */
    public Pipeline restartStrategy(RestartStrategy strategy) {
        this.restartStrategy = Objects.requireNonNull(strategy, "strategy");
        return this;
    }

    /** Hears checkpoints, failures and restores. */
    public Pipeline listener(JobListener listener) {
        this.listener = Objects.requireNonNull(listener, "listener");
        return this;
    }

    /** Starts from a savepoint or checkpoint directory instead of {@code resume}. */
    public Pipeline fromSavepoint(Path savepoint) {
        this.fromSavepoint = Objects.requireNonNull(savepoint, "savepoint");
        return this;
    }

    /**
     * Lets a restore drop state of operators or sources the pipeline no longer has, instead of
     * refusing to start (default false).
     */
    public Pipeline allowNonRestoredState(boolean allow) {
        this.allowNonRestoredState = allow;
        return this;
    }

    /** Seeds the randomness of the runtime (restart jitter) so runs are reproducible. */
    public Pipeline seed(long seed) {
        this.seed = seed;
        return this;
    }

    /** Adds a source called {@code name}; each name must be unique in the pipeline. */
    public <T> DataStream<T> source(String name, Source<T> source) {
        Objects.requireNonNull(source, "source");
        Node.SourceNode node = new Node.SourceNode(nextId(), claimName(name), source);
        nodes.add(node);
        return new DataStream<>(this, node);
    }

    /**
     * Warnings about this pipeline's guarantee, such as a source that cannot replay; also logged
     * when the job starts.
     */
    public List<String> warnings() {
        List<String> warnings = new ArrayList<>();
        for (Node node : nodes) {
            if (node instanceof Node.SourceNode source && !source.source().isReplayable()) {
                warnings.add(
                        "source '"
                                + source.name()
                                + "' ("
                                + source.source().kind()
                                + ") cannot replay: records in flight when a failure happens are"
                                + " lost, so this pipeline is at-most-once end to end; use a"
                                + " replayable source (the durable log, files, Kafka) for"
                                + " exactly-once");
            }
        }
        return warnings;
    }

    /** Builds the job and starts it; returns at once. */
    public JobHandle start() {
        for (String warning : warnings()) {
            LOG.warn(warning);
        }
        RuntimeConfig runtime = runtimeConfig();
        boolean checkpointing = checkpoints.mode() != CheckpointingMode.NONE;
        CheckpointStore store =
                checkpointing
                        ? new CheckpointStore(checkpoints.directory(), checkpoints.retained())
                        : null;
        RestartStrategy restart =
                restartStrategy != null
                        ? restartStrategy
                        : checkpointing
                                ? RestartStrategy.fixedDelay(10, Duration.ofMillis(100))
                                : RestartStrategy.none();
        return LocalJob.start(
                List.copyOf(nodes),
                new JobSettings(
                        runtime,
                        checkpoints,
                        store,
                        restart,
                        listener,
                        fromSavepoint,
                        allowNonRestoredState,
                        System::nanoTime,
                        seed));
    }

    /**
     * Runs the job to completion.
     *
     * @throws JobFailedException if the job failed; its cause is the root cause
     */
    public JobResult run() throws InterruptedException {
        return start().await();
    }

    RuntimeConfig runtimeConfig() {
        for (Node node : nodes) {
            if (node.parallelism() > maxParallelism) {
                throw new IllegalArgumentException(
                        "operator '"
                                + node.name()
                                + "' has parallelism "
                                + node.parallelism()
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
        return new RuntimeConfig(
                name,
                parallelism,
                maxParallelism,
                batchSize,
                channelCapacityBatches,
                workerThreads,
                maxIdleParkNanos);
    }

    int nextId() {
        return nodes.size();
    }

    void add(Node node) {
        nodes.add(node);
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
        String candidate = kind + "-" + nodes.size();
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
