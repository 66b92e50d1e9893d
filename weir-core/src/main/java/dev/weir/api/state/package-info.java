/**
 * Keyed state ({@link dev.weir.api.state.ValueState}, {@link dev.weir.api.state.MapState}, {@link
 * dev.weir.api.state.ListState}), partitioned into key groups so it can be restored at another
 * parallelism, and the state-backend SPI ({@link dev.weir.api.state.KeyedStateBackend}) with the
 * heap backend from {@link dev.weir.api.state.StateBackends}.
 */
package dev.weir.api.state;
