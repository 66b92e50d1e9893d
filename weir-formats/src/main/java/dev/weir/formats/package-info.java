/**
 * {@link dev.weir.api.sink.FileSink} formats written by maintained libraries: {@link
 * dev.weir.formats.JsonLinesFormat} (strict JSON lines) and {@link dev.weir.formats.CsvFormat} (RFC
 * 4180), both on Jackson.
 */
package dev.weir.formats;
