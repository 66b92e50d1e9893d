/**
 * Checkpoints: how often and where ({@link dev.weir.api.checkpoint.CheckpointConfig}), what one
 * took ({@link dev.weir.api.checkpoint.CheckpointStats}), and a read-only look into one on disk
 * ({@link dev.weir.api.checkpoint.CheckpointView}, what {@code weir inspect} prints).
 */
package dev.weir.api.checkpoint;
