package dev.weir.internal.operators;

import dev.weir.api.sink.SinkContext;

/**
 * The {@link SinkContext} of a sink subtask, taken from its operator context.
 *
 * @param jobName the job's name
 * @param sinkName the sink's name
 * @param subtaskIndex the subtask's index
 * @param parallelism the sink's parallelism
 * @param restoredCheckpointId see {@link SinkContext#restoredCheckpointId()}
 * @param jobInstanceId see {@link SinkContext#jobInstanceId()}
 * @param directory the job's checkpoint directory, or null
 */
record SubtaskSinkContext(
        String jobName,
        String sinkName,
        int subtaskIndex,
        int parallelism,
        long restoredCheckpointId,
        String jobInstanceId,
        java.nio.file.Path directory)
        implements SinkContext {
    @Override
    public java.util.Optional<java.nio.file.Path> checkpointDirectory() {
        return java.util.Optional.ofNullable(directory);
    }

    static SubtaskSinkContext of(OperatorContext context) {
        return new SubtaskSinkContext(
                context.jobName(),
                context.operatorName(),
                context.subtaskIndex(),
                context.parallelism(),
                context.restoredCheckpointId(),
                context.jobInstanceId() == null ? "" : context.jobInstanceId(),
                context.checkpointDirectory());
    }
}
