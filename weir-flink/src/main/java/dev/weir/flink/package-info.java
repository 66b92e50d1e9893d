/** Runs Weir pipelines on Apache Flink: {@link dev.weir.flink.FlinkRunner}. */
package dev.weir.flink;
