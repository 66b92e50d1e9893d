package dev.weir.internal.operators;

/**
 * An operator at the head of a keyed edge: it takes each record with the key the upstream writer
 * extracted with the same key selector.
 */
public interface KeyedInput {
    /** Processes {@code record}, whose key is {@code key}. */
    void processElement(Object record, Object key);
}
