package dev.weir.api.state;

import dev.weir.api.codec.Codec;

/**
 * Declares keyed state handles inside {@code KeyedProcessFunction.open}.
 *
 * <p>Each name may be declared once per operator. The codecs write the state into checkpoints and
 * read it back on restore, so they must stay compatible across versions of a job.
 */
public interface KeyedStateStore {
    /**
     * Declares a {@link ValueState} called {@code name}.
     *
     * @param <T> the value type
     * @param name the state's name, unique in the operator; it keys the state in checkpoints, so
     *     keep it stable across versions of a job
     * @param codec writes the values into checkpoints and reads them back
     * @return the handle; keep it in a field and use it while processing records
     * @throws IllegalArgumentException if the name is already declared
     */
    <T> ValueState<T> valueState(String name, Codec<T> codec);

    /**
     * Declares a {@link MapState} called {@code name}.
     *
     * @param <K> the map's key type
     * @param <V> the map's value type
     * @param name the state's name, unique in the operator and stable across versions of a job
     * @param keyCodec writes the map's keys into checkpoints
     * @param valueCodec writes the map's values into checkpoints
     * @return the handle; keep it in a field and use it while processing records
     * @throws IllegalArgumentException if the name is already declared
     */
    <K, V> MapState<K, V> mapState(String name, Codec<K> keyCodec, Codec<V> valueCodec);

    /**
     * Declares a {@link ListState} called {@code name}.
     *
     * @param <T> the element type
     * @param name the state's name, unique in the operator and stable across versions of a job
     * @param codec writes the elements into checkpoints and reads them back
     * @return the handle; keep it in a field and use it while processing records
     * @throws IllegalArgumentException if the name is already declared
     */
    <T> ListState<T> listState(String name, Codec<T> codec);
}
