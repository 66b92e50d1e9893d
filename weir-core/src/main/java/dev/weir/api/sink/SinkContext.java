package dev.weir.api.sink;

/** What a sink writer learns about where it runs. */
public interface SinkContext {
    /** The name the sink was given in the pipeline. */
    String sinkName();

    /** Index of the sink subtask that owns the writer, from 0. */
    int subtaskIndex();

    /** Number of subtasks of the sink. */
    int parallelism();
}
