/**
 * Sources: the {@link dev.weir.api.source.Source} and {@link dev.weir.api.source.SourceReader} SPI
 * (splits, positions, replay) and the built-in sources of {@link dev.weir.api.source.Sources}.
 */
package dev.weir.api.source;
