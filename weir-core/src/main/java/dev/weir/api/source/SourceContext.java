package dev.weir.api.source;

/** What a source reader learns about where it runs. */
public interface SourceContext {
    /** {@return the index of the source subtask that owns the reader, from 0} */
    int subtaskIndex();

    /** {@return the number of subtasks of the source} */
    int parallelism();

    /**
     * Monotonic time in nanoseconds; injected so tests and simulations are deterministic. Use it,
     * not {@link System#nanoTime()}, for rate limits and timeouts.
     *
     * @return the time now; only differences between two calls are meaningful
     */
    long nanoTime();
}
