/**
 * Sinks: the SPI for two-phase-commit ({@link dev.weir.api.sink.TwoPhaseCommitSink}), idempotent
 * and plain sinks, and the built-in ones: {@link dev.weir.api.sink.FileSink} (with pluggable {@link
 * dev.weir.api.sink.RecordFormat}s), {@link dev.weir.api.sink.LogSink}, {@link
 * dev.weir.api.sink.WriteAheadSink} and the testing sinks of {@link dev.weir.api.sink.Sinks}.
 */
package dev.weir.api.sink;
