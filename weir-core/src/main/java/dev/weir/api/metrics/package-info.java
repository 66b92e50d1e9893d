/**
 * A running job's figures as a read-only, live view ({@link dev.weir.api.metrics.JobMetrics}, from
 * {@link dev.weir.api.JobHandle#metrics()}): records in and out per step and subtask, where each
 * task spends its time, how full its channels are, checkpoints, restarts, source lag and sink
 * commit latency. The core keeps plain counters and registers nothing anywhere; the {@code
 * weir-metrics} module binds this view to a Micrometer registry.
 */
package dev.weir.api.metrics;
