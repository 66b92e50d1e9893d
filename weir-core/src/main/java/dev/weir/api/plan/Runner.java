package dev.weir.api.plan;

import dev.weir.api.JobHandle;

/**
 * Runs a {@link PipelinePlan}: Weir's in-process runtime ({@code Pipeline.start()}), or another
 * engine. A runner must keep the guarantee the plan's components declare, or refuse the plan with
 * the feature it cannot run named.
 */
public interface Runner {
    /**
     * A short name, such as {@code "local"} or {@code "flink"}.
     *
     * @return the runner's name, for logs and messages
     */
    String name();

    /**
     * Starts {@code plan}; returns at once.
     *
     * @param plan the pipeline to run
     * @return a handle to the running job
     * @throws UnsupportedOperationException if the plan uses a feature this runner cannot run; the
     *     message names it
     */
    JobHandle start(PipelinePlan plan);
}
