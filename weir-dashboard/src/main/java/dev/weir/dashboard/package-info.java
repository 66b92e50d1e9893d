/**
 * A live, read-only web dashboard for a running job ({@link dev.weir.dashboard.WeirDashboard}): the
 * job graph with per-edge backpressure, throughput sparklines, the checkpoint timeline, restarts
 * with their causes and the end-to-end guarantee with its weakest link. Off unless started; served
 * on the loopback interface from this jar's resources. Sees Weir's API only.
 */
package dev.weir.dashboard;
