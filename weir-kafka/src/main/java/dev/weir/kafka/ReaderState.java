package dev.weir.kafka;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * What a checkpoint keeps of one Kafka split: whether its partitions were chosen yet, and per
 * partition the next offset to read and, in bounded mode, the offset it stops at.
 *
 * <p>Bytes: version (1), resolved flag, count, then per partition topic (UTF), partition, next
 * offset, stop offset ({@link #UNBOUNDED} = none). The first resolution (which partitions, and
 * where "latest" or a timestamp put them) is kept so that a restore never resolves it again
 * differently.
 *
 * @param resolved true once the split chose its initial partitions and their start offsets
 * @param partitions one entry per partition the split reads or read
 */
record ReaderState(boolean resolved, List<Partition> partitions) {
    static final byte VERSION = 1;
    static final long UNBOUNDED = -1;

    ReaderState {
        partitions = List.copyOf(partitions);
    }

    /**
     * One partition's progress.
     *
     * @param topic topic name
     * @param partition partition number
     * @param next the offset of the next record to emit
     * @param stop the offset at which bounded reading ends, or {@link #UNBOUNDED}
     */
    record Partition(String topic, int partition, long next, long stop) {
        Partition {
            if (partition < 0 || next < 0 || (stop < 0 && stop != UNBOUNDED)) {
                throw new IllegalArgumentException(
                        "bad partition state " + topic + "-" + partition + " " + next + " " + stop);
            }
        }
    }

    byte[] toBytes() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(16 + partitions.size() * 32);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(VERSION);
            out.writeBoolean(resolved);
            out.writeInt(partitions.size());
            for (Partition p : partitions) {
                out.writeUTF(p.topic());
                out.writeInt(p.partition());
                out.writeLong(p.next());
                out.writeLong(p.stop());
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot happen: writing to memory", e);
        }
        return bytes.toByteArray();
    }

    static ReaderState fromBytes(byte[] bytes) throws IOException {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
            byte version = in.readByte();
            if (version != VERSION) {
                throw new IOException(
                        "Kafka source reader state of version "
                                + version
                                + " is not readable by this Weir (it reads version "
                                + VERSION
                                + ")");
            }
            boolean resolved = in.readBoolean();
            int count = in.readInt();
            if (count < 0 || count > 1_000_000) {
                throw new IOException("Kafka source reader state holds " + count + " partitions");
            }
            List<Partition> partitions = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                partitions.add(
                        new Partition(in.readUTF(), in.readInt(), in.readLong(), in.readLong()));
            }
            if (in.read() != -1) {
                throw new IOException("Kafka source reader state has trailing bytes");
            }
            return new ReaderState(resolved, partitions);
        }
    }
}
