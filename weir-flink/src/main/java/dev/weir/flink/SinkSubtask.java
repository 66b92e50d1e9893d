package dev.weir.flink;

import dev.weir.api.sink.SinkContext;

/**
 * What a Weir sink writer learns about its Flink subtask.
 *
 * @param jobName the pipeline's name
 * @param sinkName the sink step's name
 * @param subtaskIndex this subtask, from 0
 * @param parallelism the sink's subtasks
 * @param restoredCheckpointId the Flink checkpoint restored, or -1 for a fresh start
 */
record SinkSubtask(
        String jobName,
        String sinkName,
        int subtaskIndex,
        int parallelism,
        long restoredCheckpointId)
        implements SinkContext {}
