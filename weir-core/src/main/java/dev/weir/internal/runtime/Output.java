package dev.weir.internal.runtime;

import dev.weir.api.function.Collector;

/**
 * Where an operator emits records: the next chained operator, a network writer, or several.
 *
 * <p>Called on the task's thread. Never refuses: a task buffers what one input batch produces and
 * stops taking input while its writers hold unsent batches (see {@link RecordWriter}).
 */
public interface Output extends Collector<Object> {}
