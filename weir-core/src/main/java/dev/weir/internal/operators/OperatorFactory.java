package dev.weir.internal.operators;

import java.io.Serializable;

/** Creates one {@link StreamOperator} per subtask; user functions travel inside it. */
@FunctionalInterface
public interface OperatorFactory extends Serializable {
    /** Returns a fresh operator instance. */
    StreamOperator create();
}
