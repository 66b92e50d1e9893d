package dev.weir.flink;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * One split of a Weir source as a Flink split: its id, its index in {@code Source.splits(p)} (which
 * decides its reader, as on Weir's runtime: split {@code j} goes to subtask {@code j % p}), and
 * where to resume: the reader's {@code position()} and {@code snapshotState()}, which Flink keeps
 * in its checkpoints.
 *
 * @param index position of the split in the source's list
 * @param id the split's Weir id
 * @param position where reading resumes (0: the start)
 * @param state the reader's extra state, or null
 */
record WeirSplit(int index, String id, long position, byte[] state) implements SourceSplit {
    @Override
    public String splitId() {
        return id;
    }

    /** Writes splits into Flink's checkpoints. */
    static final class Serializer implements SimpleVersionedSerializer<WeirSplit> {
        static final Serializer INSTANCE = new Serializer();

        @Override
        public int getVersion() {
            return 1;
        }

        @Override
        public byte[] serialize(WeirSplit split) throws IOException {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (DataOutputStream out = new DataOutputStream(bytes)) {
                write(split, out);
            }
            return bytes.toByteArray();
        }

        @Override
        public WeirSplit deserialize(int version, byte[] bytes) throws IOException {
            checkVersion(version);
            try (DataInputStream in =
                    new DataInputStream(new java.io.ByteArrayInputStream(bytes))) {
                return read(in);
            }
        }

        static void write(WeirSplit split, DataOutputStream out) throws IOException {
            out.writeInt(split.index());
            out.writeUTF(split.id());
            out.writeLong(split.position());
            if (split.state() == null) {
                out.writeInt(-1);
            } else {
                out.writeInt(split.state().length);
                out.write(split.state());
            }
        }

        static WeirSplit read(DataInputStream in) throws IOException {
            int index = in.readInt();
            String id = in.readUTF();
            long position = in.readLong();
            int length = in.readInt();
            byte[] state = null;
            if (length >= 0) {
                state = new byte[length];
                in.readFully(state);
            }
            return new WeirSplit(index, id, position, state);
        }

        static void checkVersion(int version) throws IOException {
            if (version != 1) {
                throw new IOException("unknown Weir split format version " + version);
            }
        }
    }

    /** Writes the enumerator's checkpoint: the splits not yet assigned to a reader. */
    static final class ListSerializer implements SimpleVersionedSerializer<List<WeirSplit>> {
        static final ListSerializer INSTANCE = new ListSerializer();

        @Override
        public int getVersion() {
            return 1;
        }

        @Override
        public byte[] serialize(List<WeirSplit> splits) throws IOException {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (DataOutputStream out = new DataOutputStream(bytes)) {
                out.writeInt(splits.size());
                for (WeirSplit split : splits) {
                    Serializer.write(split, out);
                }
            }
            return bytes.toByteArray();
        }

        @Override
        public List<WeirSplit> deserialize(int version, byte[] bytes) throws IOException {
            Serializer.checkVersion(version);
            try (DataInputStream in =
                    new DataInputStream(new java.io.ByteArrayInputStream(bytes))) {
                int count = in.readInt();
                List<WeirSplit> splits = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    splits.add(Serializer.read(in));
                }
                return splits;
            }
        }
    }
}
