/**
 * Windows for keyed streams: {@link dev.weir.api.window.WindowAssigner} says which windows a record
 * belongs to (tumbling, sliding or session, in event or processing time), and {@link
 * dev.weir.api.window.TimeWindow} is one such window. Pass an assigner to {@code
 * KeyedStream.window} or {@code KeyedStream.windowJoin}; a window function gets the {@code
 * TimeWindow} that fired.
 */
package dev.weir.api.window;
