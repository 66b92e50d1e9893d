/**
 * A running Weir job's figures in Micrometer: {@link dev.weir.metrics.WeirMetrics#bind} registers
 * meters reading the job's {@link dev.weir.api.metrics.JobMetrics} in a registry the user passes,
 * and {@link dev.weir.metrics.WeirMetrics#prometheus} serves them for a Prometheus scrape on the
 * loopback interface. Nothing is registered anywhere unless one of them is called.
 */
package dev.weir.metrics;
