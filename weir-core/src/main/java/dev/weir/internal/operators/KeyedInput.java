package dev.weir.internal.operators;

/**
 * An operator at the head of a keyed edge: it takes each record with the key the upstream writer
 * extracted with the same key selector.
 */
public interface KeyedInput {
    /**
     * Processes a keyed batch: {@code pairs} holds each record followed by its key; {@code
     * timestamps} (or null when the edge carries no time) holds record {@code i / 2}'s time, which
     * is set into {@code time} before the record is processed.
     *
     * <p>The loop lives here, with the operator, so that the record loop and the user's function
     * are compiled together (docs/design/009-hot-path.md): called through the task, a per-record
     * call was left out of line whenever the JIT compiled the operator before the task's loop.
     *
     * <p>Keeps no reference to {@code timestamps} after it returns: the task hands the column back
     * to the producer, which refills it for a later batch.
     */
    void processBatch(Object[] pairs, long[] timestamps, RecordTime time);
}
