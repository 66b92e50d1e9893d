package dev.weir.flink;

import dev.weir.api.codec.Codec;
import dev.weir.api.state.KeyedStateStore;
import dev.weir.api.state.ListState;
import dev.weir.api.state.MapState;
import dev.weir.api.state.ValueState;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueStateDescriptor;

/**
 * Weir's keyed state handles over Flink's keyed state: each Weir state becomes the Flink state of
 * the same name, its values written by the state's {@link Codec} (a {@link CodecSerializer}). Flink
 * scopes them to the current key as Weir's backend does. Flink's heap backend throws no checked
 * exception on these calls; another backend's I/O failure becomes an unchecked one.
 */
final class FlinkStates implements KeyedStateStore {
    private final RuntimeContext context;
    private final List<String> names = new ArrayList<>();

    FlinkStates(RuntimeContext context) {
        this.context = context;
    }

    /** The names of the states declared so far. */
    List<String> names() {
        return names;
    }

    @Override
    public <T> ValueState<T> valueState(String name, Codec<T> codec) {
        names.add(name);
        org.apache.flink.api.common.state.ValueState<T> state =
                context.getState(new ValueStateDescriptor<>(name, new CodecSerializer<>(codec)));
        return new ValueState<>() {
            // Called per record: plain try/catch, no lambda allocated.
            @Override
            public T value() {
                try {
                    return state.value();
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }

            @Override
            public void update(T value) {
                try {
                    state.update(value);
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }

            @Override
            public void clear() {
                state.clear();
            }
        };
    }

    @Override
    public <K, V> MapState<K, V> mapState(String name, Codec<K> keyCodec, Codec<V> valueCodec) {
        names.add(name);
        org.apache.flink.api.common.state.MapState<K, V> state =
                context.getMapState(
                        new MapStateDescriptor<>(
                                name,
                                new CodecSerializer<>(keyCodec),
                                new CodecSerializer<>(valueCodec)));
        return new MapState<>() {
            @Override
            public V get(K key) {
                return call(() -> state.get(key));
            }

            @Override
            public void put(K key, V value) {
                run(() -> state.put(key, value));
            }

            @Override
            public void remove(K key) {
                run(() -> state.remove(key));
            }

            @Override
            public boolean contains(K key) {
                return call(() -> state.contains(key));
            }

            @Override
            public Map<K, V> entries() {
                return call(
                        () -> {
                            Map<K, V> copy = new LinkedHashMap<>();
                            Iterable<Map.Entry<K, V>> entries = state.entries();
                            if (entries != null) {
                                entries.forEach(e -> copy.put(e.getKey(), e.getValue()));
                            }
                            return copy;
                        });
            }

            @Override
            public void clear() {
                state.clear();
            }
        };
    }

    @Override
    public <T> ListState<T> listState(String name, Codec<T> codec) {
        names.add(name);
        org.apache.flink.api.common.state.ListState<T> state =
                context.getListState(new ListStateDescriptor<>(name, new CodecSerializer<>(codec)));
        return new ListState<>() {
            @Override
            public void add(T value) {
                run(() -> state.add(value));
            }

            @Override
            public List<T> get() {
                return call(
                        () -> {
                            List<T> copy = new ArrayList<>();
                            Iterable<T> values = state.get();
                            if (values != null) {
                                values.forEach(copy::add);
                            }
                            return copy;
                        });
            }

            @Override
            public void update(List<T> values) {
                run(() -> state.update(values));
            }

            @Override
            public void clear() {
                state.clear();
            }
        };
    }

    private interface Call<T> {
        T call() throws Exception;
    }

    private interface Run {
        void run() throws Exception;
    }

    private static <T> T call(Call<T> call) {
        try {
            return call.call();
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("Flink keyed state failed", e);
        }
    }

    private static void run(Run run) {
        call(
                () -> {
                    run.run();
                    return null;
                });
    }
}
