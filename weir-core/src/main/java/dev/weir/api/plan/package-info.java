/**
 * A pipeline as a plan: the immutable {@link dev.weir.api.plan.Step}s a {@link
 * dev.weir.api.Pipeline} froze, which a {@link dev.weir.api.plan.Runner} (Weir's local runner, or
 * another engine's) translates and runs.
 */
package dev.weir.api.plan;
