package dev.weir.flink;

import dev.weir.api.codec.Codec;
import dev.weir.api.codec.Codecs;
import java.io.IOException;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/**
 * The Flink type of {@link WeirKey}: the user's key written with {@link Codecs#auto()} (the codec
 * Weir's checkpoints use for keys); the hash is recomputed on reading.
 */
final class WeirKeyTypeInfo extends TypeInformation<WeirKey> {
    private static final long serialVersionUID = 1L;
    private final int maxParallelism;

    WeirKeyTypeInfo(int maxParallelism) {
        this.maxParallelism = maxParallelism;
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
    public Class<WeirKey> getTypeClass() {
        return WeirKey.class;
    }

    @Override
    public boolean isKeyType() {
        return true;
    }

    @Override
    public TypeSerializer<WeirKey> createSerializer(SerializerConfig config) {
        return new CodecSerializer<>(new KeyCodec(maxParallelism));
    }

    @Override
    public String toString() {
        return "WeirKey(maxParallelism=" + maxParallelism + ")";
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof WeirKeyTypeInfo that && that.maxParallelism == maxParallelism;
    }

    @Override
    public int hashCode() {
        return maxParallelism;
    }

    @Override
    public boolean canEqual(Object other) {
        return other instanceof WeirKeyTypeInfo;
    }

    /** Writes the user's key with {@link Codecs#auto()}. */
    static final class KeyCodec implements Codec<WeirKey> {
        private static final long serialVersionUID = 1L;
        private final Codec<Object> keys = Codecs.auto();
        private final int maxParallelism;
        private transient int[] hashes;

        KeyCodec(int maxParallelism) {
            this.maxParallelism = maxParallelism;
        }

        @Override
        public void encode(WeirKey value, java.io.DataOutput out) throws IOException {
            keys.encode(value.key(), out);
        }

        @Override
        public WeirKey decode(java.io.DataInput in) throws IOException {
            if (hashes == null) {
                hashes = WeirKey.hashesOfGroups(maxParallelism);
            }
            return WeirKey.of(keys.decode(in), maxParallelism, hashes);
        }

        @Override
        public String id() {
            return "weir.flink.key/" + maxParallelism;
        }
    }
}
