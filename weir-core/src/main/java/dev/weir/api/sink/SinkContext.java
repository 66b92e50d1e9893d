package dev.weir.api.sink;

/** What a sink writer learns about where it runs. */
public interface SinkContext {
    /**
     * The name of the pipeline the sink runs in. Part of deterministic transaction ids, so two jobs
     * writing to one external system do not take each other's transactions for their own.
     */
    String jobName();

    /** The name the sink was given in the pipeline. */
    String sinkName();

    /** Index of the sink subtask that owns the writer, from 0. */
    int subtaskIndex();

    /** Number of subtasks of the sink. */
    int parallelism();
}
