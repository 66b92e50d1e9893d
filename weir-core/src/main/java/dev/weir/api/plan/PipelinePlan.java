package dev.weir.api.plan;

import dev.weir.api.Guarantee;
import dev.weir.api.JobListener;
import dev.weir.api.RestartStrategy;
import dev.weir.api.checkpoint.CheckpointConfig;
import dev.weir.api.state.KeyedStateBackendFactory;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.List;

/**
 * A pipeline as built, handed to a {@link Runner}: its steps and settings. Immutable.
 *
 * @param name the pipeline's name
 * @param steps every step, inputs before consumers
 * @param settings how to run it
 */
public record PipelinePlan(String name, List<Step> steps, Settings settings) {
    /**
     * Copies the steps.
     *
     * @param name the pipeline's name
     * @param steps every step, inputs before consumers; copied
     * @param settings how to run it
     */
    public PipelinePlan {
        steps = List.copyOf(steps);
    }

    /**
     * The step with id {@code id}.
     *
     * @param id the step's id, from 0 to {@code steps().size() - 1}
     * @return the step
     * @throws IndexOutOfBoundsException if no step has that id
     */
    public Step step(int id) {
        return steps.get(id);
    }

    /**
     * How to run a pipeline; see the setters of {@code Pipeline} for each.
     *
     * @param parallelism default parallelism of steps that set none
     * @param maxParallelism number of key groups
     * @param batchSize records per batch between tasks
     * @param channelCapacityBatches batches a channel holds
     * @param channelCapacityBytes estimated bytes a channel holds (0: automatic)
     * @param workerThreads threads running cooperative tasks
     * @param maxIdleParkNanos longest park of an idle worker
     * @param autoWatermarkMillis periodic watermark interval
     * @param watermarkAlignmentMillis how far a source subtask may run ahead of its siblings in
     *     event time (0: no alignment)
     * @param checkpoints checkpointing
     * @param restartStrategy what to do on failure
     * @param listener hears checkpoints, failures and restores
     * @param fromSavepoint savepoint or checkpoint to start from, or null
     * @param allowNonRestoredState whether state of missing steps may be dropped
     * @param seed seeds the runtime's randomness
     * @param localRecovery whether restarts restore keyed state from memory
     * @param required the least end-to-end guarantee the user accepts, or null
     * @param stateBackend makes each keyed step's state backend
     * @param processingTimeClock the clock of processing time (timers, processing-time windows,
     *     periodic watermarks, idleness), or null for the system clock
     */
    public record Settings(
            int parallelism,
            int maxParallelism,
            int batchSize,
            int channelCapacityBatches,
            long channelCapacityBytes,
            int workerThreads,
            long maxIdleParkNanos,
            long autoWatermarkMillis,
            long watermarkAlignmentMillis,
            CheckpointConfig checkpoints,
            RestartStrategy restartStrategy,
            JobListener listener,
            Path fromSavepoint,
            boolean allowNonRestoredState,
            long seed,
            boolean localRecovery,
            Guarantee required,
            KeyedStateBackendFactory stateBackend,
            InstantSource processingTimeClock) {}
}
