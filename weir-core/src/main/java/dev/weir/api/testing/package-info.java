/**
 * Support for testing pipelines and connectors.
 *
 * <p>{@link dev.weir.api.testing.PipelineTestDriver} runs a user's pipeline under test, as Kafka
 * Streams' {@code TopologyTestDriver} does a topology: feed records into {@link
 * dev.weir.api.testing.TestInput}s, move processing and event time, take checkpoints, inject
 * failures, and read what the exactly-once {@link dev.weir.api.testing.TestOutput}s committed.
 *
 * <p>Hooks for proving exactly-once: named fault points, in-process failures, seeded bugs and
 * emulated power cuts, as {@code weir verify} and the conformance suites use them. Off unless a
 * test turns them on.
 */
package dev.weir.api.testing;
