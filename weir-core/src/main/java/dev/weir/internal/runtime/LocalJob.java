package dev.weir.internal.runtime;

import dev.weir.api.JobFailedException;
import dev.weir.api.JobHandle;
import dev.weir.api.JobResult;
import dev.weir.internal.graph.JobGraph;
import dev.weir.internal.graph.Node;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs a job in this JVM: a driver thread builds an {@link Execution}, waits for it and reports.
 */
public final class LocalJob implements JobHandle {
    private final String name;
    private final CompletableFuture<JobResult> result = new CompletableFuture<>();
    private final Execution execution;
    private Thread driver;

    private LocalJob(String name, Execution execution) {
        this.name = name;
        this.execution = execution;
    }

    /** Plans {@code nodes}, starts the job and returns its handle. */
    public static JobHandle start(List<Node> nodes, RuntimeConfig config) {
        JobGraph graph = JobGraph.plan(nodes, config.defaultParallelism());
        Execution execution = new Execution(graph, config, System::nanoTime);
        LocalJob job = new LocalJob(config.jobName(), execution);
        Thread driver = new Thread(job::drive, "weir-" + config.jobName() + "-driver");
        driver.setDaemon(true);
        job.driver = driver;
        driver.start();
        return job;
    }

    private void drive() {
        long startNanos = System.nanoTime();
        try {
            execution.start();
            Throwable failure = execution.awaitTermination();
            if (execution.isCancelled()) {
                result.completeExceptionally(
                        new CancellationException("job '" + name + "' was cancelled"));
            } else if (failure != null) {
                result.completeExceptionally(new JobFailedException(name, failure));
            } else {
                result.complete(
                        new JobResult(name, Duration.ofNanos(System.nanoTime() - startNanos)));
            }
        } catch (Throwable t) {
            result.completeExceptionally(new JobFailedException(name, t));
        }
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public JobResult await() throws InterruptedException {
        try {
            JobResult done = result.get();
            driver.join();
            return done;
        } catch (ExecutionException e) {
            driver.join();
            throw rethrow(e);
        }
    }

    @Override
    public JobResult await(Duration timeout) throws InterruptedException, TimeoutException {
        try {
            JobResult done = result.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
            driver.join();
            return done;
        } catch (ExecutionException e) {
            driver.join();
            throw rethrow(e);
        }
    }

    private static RuntimeException rethrow(ExecutionException e) {
        Throwable cause = e.getCause();
        if (cause instanceof RuntimeException runtime) {
            return runtime;
        }
        return new JobFailedException("?", cause);
    }

    @Override
    public void cancel() {
        execution.cancel();
    }

    @Override
    public boolean isDone() {
        return result.isDone();
    }
}
