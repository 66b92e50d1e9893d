package dev.weir.flink;

import dev.weir.api.codec.Codec;
import dev.weir.api.codec.Codecs;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/**
 * The Flink type of every stream of a translated pipeline: values written with a Weir {@link
 * Codec}, {@link Codecs#auto()} by default (Weir's lambdas carry no type Flink could extract, and
 * its records are written the way Weir writes them into logs and checkpoints).
 *
 * @param <T> value type
 */
final class CodecTypeInfo<T> extends TypeInformation<T> {
    private static final long serialVersionUID = 1L;
    private final Codec<T> codec;

    CodecTypeInfo(Codec<T> codec) {
        this.codec = codec;
    }

    /** Any value {@link Codecs#auto()} encodes. */
    static <T> CodecTypeInfo<T> auto() {
        return new CodecTypeInfo<>(Codecs.auto());
    }

    @Override
    public boolean isBasicType() {
        return false;
    }

    @Override
    public boolean isTupleType() {
        return false;
    }

    @Override
    public int getArity() {
        return 1;
    }

    @Override
    public int getTotalFields() {
        return 1;
    }

    @Override
    @SuppressWarnings("unchecked")
    public Class<T> getTypeClass() {
        return (Class<T>) Object.class;
    }

    @Override
    public boolean isKeyType() {
        return false;
    }

    @Override
    public TypeSerializer<T> createSerializer(SerializerConfig config) {
        return new CodecSerializer<>(codec);
    }

    @Override
    public String toString() {
        return "WeirCodec(" + codec.id() + ")";
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof CodecTypeInfo<?> that && codec.id().equals(that.codec.id());
    }

    @Override
    public int hashCode() {
        return codec.id().hashCode();
    }

    @Override
    public boolean canEqual(Object other) {
        return other instanceof CodecTypeInfo<?>;
    }
}
