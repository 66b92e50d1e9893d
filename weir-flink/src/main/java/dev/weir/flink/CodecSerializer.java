package dev.weir.flink;

import dev.weir.api.codec.Codec;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.Objects;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * A Flink {@link TypeSerializer} that writes values with a Weir {@link Codec}: records between
 * tasks, keyed state and keys. Flink's views are {@code DataOutput}/{@code DataInput}, so the codec
 * writes into them directly. The snapshot written into Flink's checkpoints holds the codec itself
 * (Java-serialised) and its {@link Codec#id()}; a restore with a codec that cannot read that id
 * ({@link Codec#canRead}) is incompatible, as on Weir's runtime.
 *
 * @param <T> value type
 */
final class CodecSerializer<T> extends TypeSerializer<T> {
    private static final long serialVersionUID = 1L;
    private final Codec<T> codec;

    CodecSerializer(Codec<T> codec) {
        this.codec = Objects.requireNonNull(codec, "codec");
    }

    Codec<T> codec() {
        return codec;
    }

    @Override
    public boolean isImmutableType() {
        return false;
    }

    @Override
    public TypeSerializer<T> duplicate() {
        return this; // stateless: codecs may be called from any thread
    }

    @Override
    public T createInstance() {
        return null;
    }

    @Override
    public T copy(T from) {
        return from == null ? null : codec.fromBytes(codec.toBytes(from));
    }

    @Override
    public T copy(T from, T reuse) {
        return copy(from);
    }

    @Override
    public int getLength() {
        return -1;
    }

    @Override
    public void serialize(T record, DataOutputView target) throws IOException {
        codec.encode(record, target);
    }

    @Override
    public T deserialize(DataInputView source) throws IOException {
        return codec.decode(source);
    }

    @Override
    public T deserialize(T reuse, DataInputView source) throws IOException {
        return codec.decode(source);
    }

    @Override
    public void copy(DataInputView source, DataOutputView target) throws IOException {
        codec.encode(codec.decode(source), target);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof CodecSerializer<?> that && codec.id().equals(that.codec.id());
    }

    @Override
    public int hashCode() {
        return codec.id().hashCode();
    }

    @Override
    public TypeSerializerSnapshot<T> snapshotConfiguration() {
        return new Snapshot<>(codec);
    }

    /** The codec as Flink's checkpoints keep it. */
    public static final class Snapshot<T> implements TypeSerializerSnapshot<T> {
        private Codec<T> codec;

        /** For Flink's reflective restore. */
        public Snapshot() {}

        Snapshot(Codec<T> codec) {
            this.codec = codec;
        }

        @Override
        public int getCurrentVersion() {
            return 1;
        }

        @Override
        public void writeSnapshot(DataOutputView out) throws IOException {
            out.writeUTF(codec.id());
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (ObjectOutputStream objects = new ObjectOutputStream(bytes)) {
                objects.writeObject(codec);
            }
            out.writeInt(bytes.size());
            out.write(bytes.toByteArray());
        }

        @Override
        @SuppressWarnings("unchecked")
        public void readSnapshot(int version, DataInputView in, ClassLoader loader)
                throws IOException {
            in.readUTF();
            byte[] bytes = new byte[in.readInt()];
            in.readFully(bytes);
            try (ObjectInputStream objects =
                    new ObjectInputStream(new ByteArrayInputStream(bytes)) {
                        @Override
                        protected Class<?> resolveClass(java.io.ObjectStreamClass desc)
                                throws IOException, ClassNotFoundException {
                            return Class.forName(desc.getName(), false, loader);
                        }
                    }) {
                codec = (Codec<T>) objects.readObject();
            } catch (ClassNotFoundException e) {
                throw new IOException("cannot restore the codec of a Weir state", e);
            }
        }

        @Override
        public TypeSerializer<T> restoreSerializer() {
            return new CodecSerializer<>(codec);
        }

        @Override
        public TypeSerializerSchemaCompatibility<T> resolveSchemaCompatibility(
                TypeSerializerSnapshot<T> oldSnapshot) {
            if (!(oldSnapshot instanceof Snapshot<T> old)) {
                return TypeSerializerSchemaCompatibility.incompatible();
            }
            if (old.codec.id().equals(codec.id())) {
                return TypeSerializerSchemaCompatibility.compatibleAsIs();
            }
            return codec.canRead(old.codec.id())
                    ? TypeSerializerSchemaCompatibility.compatibleAfterMigration()
                    : TypeSerializerSchemaCompatibility.incompatible();
        }
    }
}
