package dev.weir.api.plan;

import dev.weir.api.JobHandle;

/**
 * Runs a {@link PipelinePlan}: Weir's in-process runtime ({@code Pipeline.start()}), or another
 * engine. A runner must keep the guarantee the plan's components declare, or refuse the plan with
 * the feature it cannot run named.
 */
public interface Runner {
    /** A short name, such as {@code "local"} or {@code "flink"}. */
    String name();

    /** Starts {@code plan}; returns at once. */
    JobHandle start(PipelinePlan plan);
}
