package dev.weir.internal.runtime;

import dev.weir.api.JobListener;
import dev.weir.api.RestartStrategy;
import dev.weir.api.checkpoint.CheckpointConfig;
import dev.weir.internal.checkpoint.CheckpointStorage;
import java.nio.file.Path;

/**
 * Everything a job needs besides its graph.
 *
 * @param runtime threads, batches, parallelism
 * @param checkpoints checkpoint settings
 * @param store where checkpoints go, or null when checkpointing is off
 * @param restartStrategy what to do on failure
 * @param listener hears checkpoints, failures and restores
 * @param fromSavepoint a savepoint or checkpoint to start from, overriding {@code resume}, or null
 * @param allowNonRestoredState whether state for operators the pipeline lacks may be dropped
 * @param clock the clocks of the job (monotonic and wall clock), injected for tests
 * @param seed seeds the restart jitter
 * @param stateBackend makes each keyed step's state backend
 * @param synchronousCheckpointIo write checkpoints on the thread that completes a snapshot instead
 *     of an I/O thread: for a job driven step by step in a deterministic simulation
 */
public record JobSettings(
        RuntimeConfig runtime,
        CheckpointConfig checkpoints,
        CheckpointStorage store,
        RestartStrategy restartStrategy,
        JobListener listener,
        Path fromSavepoint,
        boolean allowNonRestoredState,
        RuntimeClock clock,
        long seed,
        LocalStateCache localState,
        dev.weir.api.state.KeyedStateBackendFactory stateBackend,
        boolean synchronousCheckpointIo) {}
