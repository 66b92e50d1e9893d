/**
 * A standalone Flink session cluster run as child JVMs on this machine, for tests and {@code weir
 * verify --runner flink}: {@link dev.weir.flink.cluster.LocalFlinkCluster}.
 */
package dev.weir.flink.cluster;
