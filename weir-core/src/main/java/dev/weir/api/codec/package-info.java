/**
 * How state, committables and log records become bytes: the {@link dev.weir.api.codec.Codec}
 * contract and the built-in codecs of {@link dev.weir.api.codec.Codecs} (primitives, strings,
 * bytes, records, and {@code auto()}).
 */
package dev.weir.api.codec;
