/**
 * Weir's public API: build a {@link dev.weir.api.Pipeline} (sources, {@link
 * dev.weir.api.DataStream} and {@link dev.weir.api.KeyedStream} steps, sinks), start it, and watch
 * it through its {@link dev.weir.api.JobHandle} and {@link dev.weir.api.JobListener}; {@link
 * dev.weir.api.Pipeline#guarantee()} names the weakest link of its end-to-end guarantee.
 *
 * <p>Users and connector modules use the {@code dev.weir.api} packages only; everything under
 * {@code dev.weir.internal} may change without notice.
 */
package dev.weir.api;
