/**
 * The user functions a pipeline's steps call: map, filter, flatMap, key selectors, reduce and keyed
 * process functions, and the {@link dev.weir.api.function.Collector} they emit through. They are
 * serialized with the pipeline, so they should hold settings, not resources.
 */
package dev.weir.api.function;
