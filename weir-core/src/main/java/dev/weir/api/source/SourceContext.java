package dev.weir.api.source;

/** What a source reader learns about where it runs. */
public interface SourceContext {
    /** Index of the source subtask that owns the reader, from 0. */
    int subtaskIndex();

    /** Number of subtasks of the source. */
    int parallelism();

    /** Monotonic time in nanoseconds; injected so tests and simulations are deterministic. */
    long nanoTime();
}
