package dev.weir.internal.state;

import dev.weir.internal.state.HeapKeyedStateBackend.Declaration;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;

/** Encodes one key's value of one declared state with that state's codecs. */
final class StateValues {
    private StateValues() {}

    /** Writes {@code value} of the state {@code declaration} to {@code out}. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    static void encode(Declaration declaration, Object value, java.io.DataOutput out) {
        try {
            dev.weir.api.codec.Codec codec = declaration.codec();
            switch (declaration.kind()) {
                case VALUE -> codec.encode(value, out);
                case MAP -> {
                    Map<Object, Object> map = (Map<Object, Object>) value;
                    dev.weir.api.codec.Codec valueCodec = declaration.valueCodec();
                    out.writeInt(map.size());
                    for (Map.Entry<Object, Object> entry : map.entrySet()) {
                        codec.encode(entry.getKey(), out);
                        valueCodec.encode(entry.getValue(), out);
                    }
                }
                case LIST -> {
                    List<Object> list = (List<Object>) value;
                    out.writeInt(list.size());
                    for (Object element : list) {
                        codec.encode(element, out);
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (ClassCastException e) {
            throw new IllegalStateException(
                    "state '" + declaration.name() + "' holds a value its codec cannot write: " + e,
                    e);
        }
    }

    static Object decode(Declaration declaration, java.io.DataInput in) {
        try {
            switch (declaration.kind()) {
                case VALUE:
                    return declaration.codec().decode(in);
                case MAP:
                    int size = in.readInt();
                    Map<Object, Object> map = new StateMap<>();
                    for (int i = 0; i < size; i++) {
                        map.put(
                                declaration.codec().decode(in),
                                declaration.valueCodec().decode(in));
                    }
                    return map;
                default:
                    int length = in.readInt();
                    List<Object> list = new StateList<>(null);
                    for (int i = 0; i < length; i++) {
                        list.add(declaration.codec().decode(in));
                    }
                    return list;
            }
        } catch (IOException e) {
            throw new IllegalStateException(
                    "state '"
                            + declaration.name()
                            + "' cannot be decoded from the checkpoint with its codec ("
                            + e
                            + "); was the codec changed?",
                    e);
        }
    }
}
