package dev.weir.api.function;

import java.io.Serializable;

/**
 * Creates one instance of a stateful user function per subtask, such as {@code SumFunction::new},
 * so fields set in {@code open} are never shared between subtasks.
 *
 * @param <F> function type
 */
@FunctionalInterface
public interface FunctionFactory<F> extends Serializable {
    /** Returns a new instance. */
    F create();
}
