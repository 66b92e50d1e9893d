/**
 * Hooks for proving exactly-once: named fault points, in-process failures, seeded bugs and emulated
 * power cuts, as {@code weir verify} and the conformance suites use them. Off unless a test turns
 * them on.
 */
package dev.weir.api.testing;
