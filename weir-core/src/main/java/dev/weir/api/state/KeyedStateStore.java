package dev.weir.api.state;

import dev.weir.api.codec.Codec;

/**
 * Declares keyed state handles inside {@code KeyedProcessFunction.open}.
 *
 * <p>Each name may be declared once per operator. The codecs write the state into checkpoints and
 * read it back on restore, so they must stay compatible across versions of a job.
 */
public interface KeyedStateStore {
    /** Declares a {@link ValueState} called {@code name}. */
    <T> ValueState<T> valueState(String name, Codec<T> codec);

    /** Declares a {@link MapState} called {@code name}. */
    <K, V> MapState<K, V> mapState(String name, Codec<K> keyCodec, Codec<V> valueCodec);

    /** Declares a {@link ListState} called {@code name}. */
    <T> ListState<T> listState(String name, Codec<T> codec);
}
