package dev.weir.internal.operators;

import dev.weir.api.state.KeyedStateBackend;

/**
 * What an operator sees of its subtask.
 *
 * @param jobName the name of the job the operator runs in
 * @param operatorName the operator's unique name in the pipeline
 * @param subtaskIndex this subtask's index, from 0
 * @param parallelism the operator's number of subtasks
 * @param output where the operator emits records
 * @param keyedState the keyed state of this operator and subtask, or null if the input is not keyed
 * @param stateBackendId the id of the backend of {@code keyedState}, written beside its snapshots
 * @param checkpointing true if the job takes checkpoints
 * @param restoredCheckpointId the checkpoint this run restored, 0 if it asked to resume and found
 *     none, -1 if it started fresh by request (see {@link
 *     dev.weir.api.sink.SinkContext#restoredCheckpointId()})
 * @param time the task's current record time, shared by its operators and writers
 * @param timeService the task's processing-time callbacks
 * @param sideOutputs the outputs of this operator's side outputs, by tag id (only tags someone
 *     reads)
 * @param autoWatermarkMillis how often timestamp assigners emit periodic watermarks
 * @param jobInstanceId the job instance id of the checkpoint directory, or "" without one (see
 *     {@link dev.weir.api.sink.SinkContext#jobInstanceId()})
 * @param checkpointDirectory the job's checkpoint directory, or null without one
 */
public record OperatorContext(
        String jobName,
        String operatorName,
        int subtaskIndex,
        int parallelism,
        Output output,
        KeyedStateBackend keyedState,
        String stateBackendId,
        boolean checkpointing,
        long restoredCheckpointId,
        RecordTime time,
        ProcessingTimeService timeService,
        java.util.Map<String, Output> sideOutputs,
        long autoWatermarkMillis,
        String jobInstanceId,
        java.nio.file.Path checkpointDirectory) {}
