package dev.weir.api.testing;

import dev.weir.api.DataStream;
import dev.weir.api.JobFailedException;
import dev.weir.api.JobHandle;
import dev.weir.api.Pipeline;
import dev.weir.api.RestartStrategy;
import dev.weir.api.checkpoint.CheckpointConfig;
import dev.weir.api.checkpoint.CheckpointStats;
import dev.weir.api.time.WatermarkStrategy;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

/**
 * Runs a user's pipeline under test, in the manner of Kafka Streams' {@code TopologyTestDriver}:
 * the test feeds records into named {@linkplain TestInput test inputs}, moves processing time and
 * event time, takes checkpoints, injects failures, and reads what the {@linkplain TestOutput test
 * outputs} committed.
 *
 * <pre>{@code
 * try (PipelineTestDriver driver = PipelineTestDriver.create("word-count", tempDir)) {
 *     TestInput<String> lines = driver.input("lines");
 *     DataStream<String> counts = lines.stream()
 *             .flatMap((String line, Collector<String> out) -> { for (String w : line.split(" ")) out.collect(w); })
 *             .keyBy(w -> w)
 *             .process("count", new CountWords());
 *     TestOutput<String> out = driver.output("counts", counts);
 *     driver.start();
 *     lines.feed("a b", "b");
 *     driver.checkpoint();
 *     assertThat(out.committed()).containsExactlyInAnyOrder("a=1", "b=1", "b=2");
 * }
 * }</pre>
 *
 * <p>The job runs on Weir's in-process runtime with its real threads, exactly-once checkpoints into
 * the given directory (on demand only: {@link #checkpoint()}), and a processing-time clock that
 * only {@link #advanceProcessingTime} moves (it starts at 0, the epoch). Nothing waits for
 * wall-clock time to pass: every method that waits, waits for a condition of the job (a reader's
 * position, a checkpoint, a commit) and fails after {@link #timeout(Duration)} (default 60 s) only
 * if the job is stuck. The default restart strategy restarts at once, up to 10 times; change it,
 * the parallelism or anything else through {@link #pipeline()} before {@link #start()}.
 *
 * <p>Event time comes from the inputs (timestamps fed with the records, and {@link
 * TestInput#advanceWatermark}). A step of the pipeline's own that assigns timestamps ({@code
 * assignTimestampsAndWatermarks}) asks its generator for periodic watermarks by processing time,
 * which under the driver moves only with {@link #advanceProcessingTime}: move it past {@code
 * Pipeline.autoWatermarkInterval} for such a step to emit one.
 *
 * <h2>How the methods are called</h2>
 *
 * By the test's thread, one call at a time: first {@link #input}, {@link #output} and {@link
 * #pipeline()} to build the pipeline, then {@link #start()} once, then any of {@link
 * #checkpoint()}, {@link #advanceProcessingTime}, {@link #injectFailure()}, the inputs' {@code
 * feed} and the outputs' {@code committed()}, and {@link #close()} at the end. The job's tasks run
 * meanwhile on the job's worker threads; reading an output needs no synchronisation from the test.
 */
public final class PipelineTestDriver implements AutoCloseable {
    /** Guards the inputs' feeds and the outputs' transactions; notified when either moves. */
    private final Object lock = new Object();

    private final Pipeline pipeline;
    private final AtomicLong processingTimeMillis = new AtomicLong();
    private final List<TestInput<?>> inputs = new ArrayList<>();
    private final List<TestOutput<?>> outputs = new ArrayList<>();
    private JobHandle job;
    private Duration timeout = Duration.ofSeconds(60);

    /** True once {@link #close()} ran: every later call is refused. */
    private boolean closed;

    /**
     * The first failure of the job that the test did not inject (a user function threw): the next
     * call of the driver, an input or an output throws it instead of letting the job restart over
     * it again and again. Noted by the job's threads (the listener), all under {@link #lock}.
     */
    private final JobFailure failure = new JobFailure();

    /** True if processing time moved since the last checkpoint: the next one is taken twice. */
    private boolean processingTimeMoved;

    /**
     * Checkpoints taken in a row that may be aborted by failures before {@link #checkpoint} gives
     * up.
     */
    private static final int CHECKPOINT_ATTEMPTS = 20;

    /** Longest wait, after an aborted checkpoint, for the failure behind it to be reported. */
    private static final Duration ABORT_SETTLE = Duration.ofSeconds(5);

    /** Longest single wait on the lock before the job's end is looked at again. */
    private static final long RECHECK_MILLIS = 10;

    private PipelineTestDriver(String name, Path checkpointDirectory) {
        InstantSource clock =
                new InstantSource() {
                    @Override
                    public Instant instant() {
                        return Instant.ofEpochMilli(millis());
                    }

                    @Override
                    public long millis() {
                        return processingTimeMillis.get(); // what tasks read, without an Instant
                    }
                };
        this.pipeline =
                Pipeline.create(name)
                        .checkpointing(
                                CheckpointConfig.exactlyOnce(
                                                Duration.ZERO,
                                                Objects.requireNonNull(
                                                        checkpointDirectory, "checkpointDirectory"))
                                        .withResume("none"))
                        .restartStrategy(RestartStrategy.fixedDelay(10, Duration.ZERO))
                        .processingTimeClock(clock)
                        .listener(
                                new dev.weir.api.JobListener() {
                                    @Override
                                    public void onFailure(
                                            Throwable cause, int attempt, boolean willRestart) {
                                        noteFailure(cause);
                                    }
                                });
    }

    /** Keeps the first failure that {@link #injectFailure()} did not cause; wakes the test. */
    private void noteFailure(Throwable cause) {
        int depth = 0; // bounded: causes can form a loop
        for (Throwable t = cause; t != null && depth < 100; t = t.getCause(), depth++) {
            if (t instanceof TestInput.InjectedFailure) {
                return;
            }
        }
        synchronized (lock) {
            failure.note(cause);
            lock.notifyAll();
        }
    }

    /**
     * A driver for a pipeline called {@code name} that keeps its checkpoints in {@code
     * checkpointDirectory} (a fresh directory, such as a JUnit {@code @TempDir}). Called by the
     * test's thread.
     *
     * @param name the pipeline's name (letters, digits, '-', '_', '.')
     * @param checkpointDirectory where checkpoints go; a fresh directory, not shared with another
     *     driver
     * @return a driver with an empty pipeline, not started
     * @throws IllegalArgumentException if {@code name} is not allowed
     */
    public static PipelineTestDriver create(String name, Path checkpointDirectory) {
        return new PipelineTestDriver(name, checkpointDirectory);
    }

    /**
     * The pipeline under test, to add steps to or change settings of (parallelism, restart
     * strategy, state backend) before {@link #start()}. Its checkpointing, processing-time clock
     * and listener belong to the driver: changing them breaks {@link #checkpoint()}, {@link
     * #advanceProcessingTime} and the report of a failing step. Called by the test's thread.
     *
     * @return the pipeline the driver runs
     */
    public Pipeline pipeline() {
        return pipeline;
    }

    /**
     * How long a method of this driver waits for the job before it fails (default 60 s): a limit
     * for a stuck job, never a pause. Called by the test's thread.
     *
     * @param limit the longest wait of one driver call
     * @return this driver
     */
    public PipelineTestDriver timeout(Duration limit) {
        this.timeout = Objects.requireNonNull(limit, "limit");
        return this;
    }

    /**
     * Adds a test source called {@code name} whose watermark follows the fed timestamps exactly (no
     * out-of-orderness). Called by the test's thread before {@link #start()}.
     *
     * @param <T> the type of the records fed
     * @param name the source's name, unique in the pipeline; {@code name + ".values"} is taken too
     * @return the input, to feed records into and to build the pipeline on with {@link
     *     TestInput#stream()}
     * @throws IllegalStateException if the driver was started
     */
    public <T> TestInput<T> input(String name) {
        return input(name, Duration.ZERO);
    }

    /**
     * Adds a test source called {@code name} whose watermark trails the largest fed timestamp by
     * {@code maxOutOfOrderness}. It runs with parallelism 1, so records keep the order fed until
     * the first step with another parallelism or a key. Called by the test's thread before {@link
     * #start()}.
     *
     * @param <T> the type of the records fed
     * @param name the source's name, unique in the pipeline; {@code name + ".values"} is taken too
     * @param maxOutOfOrderness how far the watermark trails the largest fed timestamp; not negative
     * @return the input, to feed records into and to build the pipeline on with {@link
     *     TestInput#stream()}
     * @throws IllegalArgumentException if {@code maxOutOfOrderness} is negative
     * @throws IllegalStateException if the driver was started
     */
    public <T> TestInput<T> input(String name, Duration maxOutOfOrderness) {
        requireNotStarted("input");
        long bound = maxOutOfOrderness.toMillis();
        if (bound < 0) {
            throw new IllegalArgumentException("maxOutOfOrderness must not be negative");
        }
        TestInput.Feed<T> feed = new TestInput.Feed<>(lock, failure);
        WatermarkStrategy<TestInput.Entry<T>> watermarks =
                WatermarkStrategy.<TestInput.Entry<T>>forGenerator(
                                () -> new TestInput.FeedWatermarks<>(bound))
                        .withTimestampAssigner((entry, previous) -> entry.timestamp());
        DataStream<T> values =
                pipeline.source(name, new TestInput.FeedSource<>(feed), watermarks)
                        .parallelism(1)
                        .<T>flatMap(
                                (entry, out) -> {
                                    if (!entry.watermark()) {
                                        out.collect(entry.value());
                                    }
                                })
                        .parallelism(1)
                        .name(name + ".values");
        TestInput<T> input = new TestInput<>(name, feed, values);
        inputs.add(input);
        return input;
    }

    /**
     * Adds a test sink called {@code name} on {@code stream}: an exactly-once two-phase-commit sink
     * whose committed output the returned {@link TestOutput} reads. Called by the test's thread
     * before {@link #start()}.
     *
     * @param <T> the type of the records written
     * @param name the sink's name, unique in the pipeline
     * @param stream the stream to write
     * @return the output, to read what was committed
     * @throws IllegalStateException if the driver was started
     * @throws IllegalArgumentException if {@code stream} was built on another pipeline
     */
    public <T> TestOutput<T> output(String name, DataStream<T> stream) {
        requireNotStarted("output");
        TestOutput<T> output = new TestOutput<>(name, lock, failure);
        stream.sink(name, output.sink());
        if (pipeline.plan().steps().stream().noneMatch(step -> step.name().equals(name))) {
            throw new IllegalArgumentException(
                    "output '"
                            + name
                            + "': the stream belongs to another pipeline; build it from an"
                            + " input's stream() or from driver.pipeline()");
        }
        outputs.add(output);
        return output;
    }

    /**
     * Starts the job; returns once it is running (records fed before are read then). Called once,
     * by the test's thread, after the pipeline is built.
     *
     * @return this driver
     * @throws IllegalStateException if the driver was started before or has no test input
     */
    public PipelineTestDriver start() {
        requireNotStarted("start");
        if (inputs.isEmpty()) {
            throw new IllegalStateException(
                    "the pipeline has no test input; add one with driver.input(name)");
        }
        job = pipeline.start();
        return this;
    }

    /**
     * Takes a checkpoint and waits until it is complete and every test output has committed it.
     * Before triggering it, waits until every input has read everything fed so far, so afterwards
     * every record fed before this call has been processed by every step, and the outputs' {@link
     * TestOutput#committed()} holds all the output those records caused. A checkpoint aborted by a
     * failure (see {@link #injectFailure()}) is taken again once the job has restarted. Called by
     * the test's thread.
     *
     * @return the id of the checkpoint
     * @throws IllegalStateException if the job failed or ended, naming the cause, or if it did not
     *     get there within the {@linkplain #timeout(Duration) timeout}
     */
    public long checkpoint() {
        requireStarted("checkpoint");
        long id = checkpointOnce();
        if (processingTimeMoved) {
            // A task may have looked at the clock for due timers just before it was moved and
            // then met this checkpoint's barrier in the same step; by the next barrier it has
            // looked again (the runtime fires due timers first thing in every task step), so the
            // timers that were due fired before that barrier.
            processingTimeMoved = false;
            id = checkpointOnce();
        }
        return id;
    }

    private long checkpointOnce() {
        for (int attempt = 0; attempt < CHECKPOINT_ATTEMPTS; attempt++) {
            requireNoUnexpectedFailure("during a checkpoint");
            awaitJob(this::inputsCaughtUp, "the inputs to read everything fed");
            long readersBefore = readersOpened();
            CheckpointStats stats;
            try {
                stats = job.triggerCheckpoint().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (ExecutionException aborted) {
                // A failure aborted it. The job hears of the failure just after: wait for that (a
                // step's own failure is then thrown) or for the restart, then take another.
                long until = System.nanoTime() + ABORT_SETTLE.toNanos();
                synchronized (lock) {
                    while (!failure.happened()
                            && readersOpened() == readersBefore
                            && !job.isDone()
                            && System.nanoTime() < until) {
                        try {
                            lock.wait(RECHECK_MILLIS);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            throw new IllegalStateException(
                                    "interrupted after an aborted checkpoint", e);
                        }
                    }
                }
                requireRunning("after a checkpoint was aborted");
                continue;
            } catch (TimeoutException e) {
                throw new IllegalStateException(
                        "checkpoint not complete after " + timeout + "; is a step stuck?", e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for a checkpoint", e);
            }
            if (readersOpened() != readersBefore) {
                continue; // the job restarted meanwhile: this checkpoint may predate some records
            }
            long id = stats.id();
            awaitJob(
                    () -> outputs.stream().allMatch(output -> output.committedThrough(id)),
                    "the outputs to commit checkpoint " + id);
            return id;
        }
        requireNoUnexpectedFailure("during a checkpoint");
        throw new IllegalStateException(
                CHECKPOINT_ATTEMPTS
                        + " checkpoints in a row were aborted or overtaken by restarts");
    }

    /**
     * Moves processing time on by {@code duration}: processing-time timers and windows due by then
     * fire on the job's threads, and by the time the next {@link #checkpoint()} returns their
     * output is committed (that call takes two checkpoints: a task looks at the clock at the start
     * of each step, so one that met the first barrier in a step begun before the clock moved has
     * fired its due timers by the second). As with {@code TopologyTestDriver}, records fed before
     * this call are processed at the earlier time: this first takes a {@link #checkpoint()} (so the
     * output they caused is committed). Called by the test's thread.
     *
     * @param duration how far to move the clock; not negative
     * @throws IllegalArgumentException if {@code duration} is negative
     * @throws IllegalStateException as {@link #checkpoint()} does, which this calls first
     */
    public void advanceProcessingTime(Duration duration) {
        requireOpen("advanceProcessingTime");
        if (duration.isNegative()) {
            throw new IllegalArgumentException("processing time does not go back: " + duration);
        }
        checkpoint();
        processingTimeMillis.addAndGet(duration.toMillis());
        processingTimeMoved = true;
    }

    /**
     * The processing time now, in milliseconds since the epoch (starts at 0). Any thread.
     *
     * @return milliseconds since the epoch
     */
    public long processingTimeMillis() {
        return processingTimeMillis.get();
    }

    /**
     * Fails the job once, as a crash between checkpoints would: waits until the inputs have read
     * everything fed so far (so its effects are in flight or in open sink transactions), then makes
     * the next read of the first input throw, and waits until the job has restarted from its last
     * checkpoint as its restart strategy says. Open transactions are lost and the records since
     * that checkpoint are read again; the next {@link #checkpoint()} commits their output once.
     * Called by the test's thread.
     *
     * @throws IllegalStateException if the restart strategy gave up and the job failed
     */
    public void injectFailure() {
        requireStarted("injectFailure");
        awaitJob(this::inputsCaughtUp, "the inputs to read everything fed");
        int restartsBefore = job.restarts();
        synchronized (lock) {
            inputs.get(0).feed().armFailure();
        }
        awaitJob(
                () -> job.restarts() > restartsBefore && inputsOpen(),
                "the job to restart after the injected failure");
    }

    /**
     * How many times the job restarted after a failure. Any thread.
     *
     * @return restarts since {@link #start()}
     * @throws IllegalStateException if the driver was not started
     */
    public int restarts() {
        requireStarted("restarts");
        return job.restarts();
    }

    /**
     * The running job, for what the driver does not cover (checkpoint stats, metrics).
     *
     * @return the job's handle
     * @throws IllegalStateException if the driver was not started
     */
    public JobHandle job() {
        requireStarted("job");
        return job;
    }

    /**
     * Cancels the job and waits until its threads have ended; what was committed stays readable.
     * Called by the test's thread, at the end; idempotent.
     *
     * @throws IllegalStateException if a step failed (not by {@link #injectFailure()}) and no call
     *     of the driver, an input or an output has reported it yet: a test must not pass silently
     *     over a crashed job
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (TestInput<?> input : inputs) {
            input.feed().close();
        }
        if (job == null) {
            return;
        }
        job.cancel();
        try {
            job.await(timeout);
        } catch (CancellationException | JobFailedException ended) {
            // cancelled as asked, or failed before: either way it has ended
        } catch (TimeoutException e) {
            throw new IllegalStateException("the job did not end within " + timeout, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        // A step failed and nothing told the test yet: it must not pass silently.
        synchronized (lock) {
            if (failure.unreported()) {
                failure.throwIfAny("at close");
            }
        }
    }

    private boolean inputsCaughtUp() {
        for (TestInput<?> input : inputs) {
            if (!input.feed().caughtUp()) {
                return false;
            }
        }
        return true;
    }

    private boolean inputsOpen() {
        for (TestInput<?> input : inputs) {
            if (!input.feed().open()) {
                return false;
            }
        }
        return true;
    }

    private long readersOpened() {
        synchronized (lock) {
            long opened = 0;
            for (TestInput<?> input : inputs) {
                opened += input.feed().readersOpened();
            }
            return opened;
        }
    }

    /**
     * Waits under the lock until {@code condition} holds (it is re-evaluated whenever the job's
     * inputs or outputs move, and at least every {@value #RECHECK_MILLIS} ms to notice a job that
     * ended); fails if the job ends first or the timeout passes.
     */
    private void awaitJob(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (lock) {
            while (!condition.getAsBoolean()) {
                requireNoUnexpectedFailure("while waiting for " + what);
                if (job.isDone()) {
                    throw ended("while waiting for " + what);
                }
                long leftMillis = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (leftMillis <= 0) {
                    throw new IllegalStateException(
                            "timed out after " + timeout + " waiting for " + what);
                }
                try {
                    lock.wait(Math.min(RECHECK_MILLIS, leftMillis));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while waiting for " + what, e);
                }
            }
        }
    }

    private void requireRunning(String what) {
        requireNoUnexpectedFailure(what);
        if (job.isDone()) {
            throw ended(what);
        }
    }

    /**
     * Throws the failure of a step the test did not inject, as {@code TopologyTestDriver} throws
     * the exception of a processor: the test sees the cause at once instead of a job restarting
     * over the same record.
     */
    private void requireNoUnexpectedFailure(String when) {
        synchronized (lock) {
            failure.throwIfAny(when);
        }
    }

    /** The failure of a job that ended while the driver waited, with its root cause. */
    private IllegalStateException ended(String when) {
        try {
            job.await(Duration.ZERO);
        } catch (JobFailedException failed) {
            return new IllegalStateException(
                    "the job failed " + when + ": " + failed.getCause(), failed);
        } catch (CancellationException cancelled) {
            return new IllegalStateException("the job was cancelled " + when, cancelled);
        } catch (InterruptedException | TimeoutException e) {
            return new IllegalStateException("the job ended " + when, e);
        }
        return new IllegalStateException(
                "the job ended " + when + ", although its test inputs never end");
    }

    private void requireStarted(String method) {
        requireOpen(method);
        if (job == null) {
            throw new IllegalStateException(method + "() needs a running job; call start() first");
        }
    }

    private void requireNotStarted(String method) {
        requireOpen(method);
        if (job != null) {
            throw new IllegalStateException(
                    method.equals("start")
                            ? "start() was called already; a driver runs its pipeline once"
                            : method + "() builds the pipeline, so it must come before start()");
        }
    }

    private void requireOpen(String method) {
        if (closed) {
            throw new IllegalStateException(method + "(): the driver is closed");
        }
    }
}
