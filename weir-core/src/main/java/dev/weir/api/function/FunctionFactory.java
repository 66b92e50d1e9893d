package dev.weir.api.function;

import java.io.Serializable;

/**
 * Creates one instance of a stateful user function per subtask, such as {@code SumFunction::new},
 * so fields set in {@code open} are never shared between subtasks. Called on the task's thread each
 * time a subtask starts, so also after every restart.
 *
 * @param <F> function type
 */
@FunctionalInterface
public interface FunctionFactory<F> extends Serializable {
    /**
     * Returns a new instance.
     *
     * @return a new, unopened function; never an instance shared with another call
     */
    F create();
}
