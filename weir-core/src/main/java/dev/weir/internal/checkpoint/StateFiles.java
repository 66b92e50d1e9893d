package dev.weir.internal.checkpoint;

import dev.weir.api.checkpoint.CheckpointCorruptedException;
import dev.weir.api.codec.Codecs;
import dev.weir.api.state.KeyedSection;
import dev.weir.api.state.KeyedStateBackend;
import dev.weir.internal.checkpoint.TaskSnapshot.OperatorSnapshot;
import dev.weir.internal.io.ByteArrayDataInput;
import dev.weir.internal.io.ByteArrayDataOutput;
import java.io.DataOutput;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32C;

/**
 * The binary format of a task's state file, and durable file writes.
 *
 * <pre>
 * int magic 'WEIR', short version, UTF task name, UTF source name,
 * int splits, (UTF split, long position, int stateLength (-1 = none), bytes,
 *             boolean ended (version 3+), long watermark (version 4+))*,
 * int operators, (UTF name, int subtask, int parallelism,
 *                 int operatorStateLength (-1 = none), bytes,
 *                 boolean keyed, [UTF backend id, int keys,
 *                                 int external files, (UTF path, long length, long crc32c)*,
 *                                 int length, bytes (the backend's own format)])*,
 * int CRC32C of everything before it
 * </pre>
 *
 * A keyed section is written by the step's state backend ({@code KeyedStateBackend.KeyedSnapshot});
 * the file only frames it, so any backend's state travels in the same checkpoint, and a section may
 * refer to files outside the checkpoint directory (incremental checkpoints). Version 2 files (no
 * frame) hold the heap backend's section inline; they are read as backend {@code heap.v2}.
 */
public final class StateFiles {
    static final int MAGIC = 0x57454952;
    static final short VERSION = 4;

    /** The backend id given to the heap sections of version-2 files (no codec ids in them). */
    public static final String LEGACY_HEAP_SECTION = "heap.v2";

    /** The oldest version read: 2 (version 1 predates Weir's first landing with checkpoints). */
    static final short OLDEST_VERSION = 2;

    private StateFiles() {}

    /** Serialises {@code snapshot}; runs on the snapshot thread, off the task's hot path. */
    public static byte[] serialize(TaskSnapshot snapshot) {
        ByteArrayDataOutput out = new ByteArrayDataOutput(64 * 1024);
        try {
            out.writeInt(MAGIC);
            out.writeShort(VERSION);
            out.writeUTF(snapshot.taskName());
            out.writeUTF(snapshot.sourceName());
            out.writeInt(snapshot.splits().size());
            for (Map.Entry<String, SplitState> split : snapshot.splits().entrySet()) {
                out.writeUTF(split.getKey());
                out.writeLong(split.getValue().position());
                writeBlob(out, split.getValue().readerState());
                out.writeBoolean(split.getValue().ended());
                out.writeLong(split.getValue().watermark());
            }
            out.writeInt(snapshot.operators().size());
            for (OperatorSnapshot operator : snapshot.operators()) {
                out.writeUTF(operator.name());
                out.writeInt(operator.subtask());
                out.writeInt(operator.parallelism());
                writeBlob(out, operator.operatorState());
                out.writeBoolean(operator.keyed() != null);
                if (operator.keyed() != null) {
                    out.writeUTF(operator.backendId());
                    out.writeInt(operator.keyed().keyCount());
                    out.writeInt(0); // external files: none yet (see design 005)
                    int lengthAt = out.size();
                    out.writeInt(0);
                    operator.keyed().writeTo(out);
                    out.patchInt(lengthAt, out.size() - lengthAt - 4);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        CRC32C crc = new CRC32C();
        crc.update(out.buffer(), 0, out.size());
        out.writeInt((int) crc.getValue());
        return out.toByteArray();
    }

    static void writeBlob(DataOutput out, byte[] blob) throws IOException {
        if (blob == null) {
            out.writeInt(-1);
        } else {
            out.writeInt(blob.length);
            out.write(blob);
        }
    }

    static byte[] readBlob(java.io.DataInput in) throws IOException {
        int length = in.readInt();
        if (length == -1) {
            return null;
        }
        byte[] blob = new byte[checkLength(length)];
        in.readFully(blob);
        return blob;
    }

    private static int checkLength(int length) throws IOException {
        if (length < 0 || length > Codecs.MAX_ARRAY_BYTES) {
            throw new IOException("impossible length " + length);
        }
        return length;
    }

    /** What one state file holds, decoded except for keyed values. */
    public record TaskState(
            String taskName,
            String sourceName,
            Map<String, SplitState> splits,
            List<OperatorState> operators) {}

    /**
     * One operator's restored state.
     *
     * @param name the operator's name
     * @param subtask the subtask that saved it
     * @param parallelism that subtask's parallelism
     * @param operatorState non-keyed state bytes, or null
     * @param keyed keyed state read from the file, or null (none, or held in memory)
     * @param copy keyed state held in memory by local recovery (the snapshot the file was written
     *     from), or null
     */
    public record OperatorState(
            String name,
            int subtask,
            int parallelism,
            byte[] operatorState,
            KeyedSection keyed,
            KeyedStateBackend.KeyedSnapshot copy) {
        /** True if the old subtask held any state. */
        public boolean hasState() {
            return operatorState != null
                    || (keyed != null && keyed.keyCount() > 0)
                    || (copy != null && copy.keyCount() > 0);
        }
    }

    /** Parses a state file already verified against the manifest; checks its own CRC too. */
    public static TaskState parse(Path path, byte[] bytes) {
        if (bytes.length < 10) {
            throw new CheckpointCorruptedException(path, "too short to be a state file");
        }
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, bytes.length - 4);
        int stored = ByteBuffer.wrap(bytes, bytes.length - 4, 4).getInt();
        if ((int) crc.getValue() != stored) {
            throw new CheckpointCorruptedException(path, "its trailing CRC32C does not match");
        }
        try {
            ByteArrayDataInput in = new ByteArrayDataInput().reset(bytes, 0, bytes.length - 4);
            if (in.readInt() != MAGIC) {
                throw new CheckpointCorruptedException(path, "not a Weir state file (bad magic)");
            }
            short version = in.readShort();
            if (version < OLDEST_VERSION || version > VERSION) {
                throw new CheckpointCorruptedException(
                        path,
                        "format version "
                                + version
                                + " is not supported by this Weir (reads "
                                + VERSION
                                + ")");
            }
            String taskName = in.readUTF();
            String sourceName = in.readUTF();
            int splitCount = in.readInt();
            Map<String, SplitState> splits = new LinkedHashMap<>();
            for (int i = 0; i < splitCount; i++) {
                String split = in.readUTF();
                long position = in.readLong();
                byte[] state = readBlob(in);
                // Before version 3 ended splits were not marked (and were read again on restore).
                boolean ended = version >= 3 && in.readBoolean();
                // Version 4 added the split's watermark (sources that assign event time).
                long watermark = version >= 4 ? in.readLong() : Long.MIN_VALUE;
                splits.put(split, new SplitState(position, state, ended, watermark));
            }
            int operatorCount = in.readInt();
            List<OperatorState> operators = new ArrayList<>();
            for (int i = 0; i < operatorCount; i++) {
                String name = in.readUTF();
                int subtask = in.readInt();
                int parallelism = in.readInt();
                byte[] operatorState = readBlob(in);
                KeyedSection keyed = in.readBoolean() ? readKeyed(in, bytes, version) : null;
                operators.add(
                        new OperatorState(name, subtask, parallelism, operatorState, keyed, null));
            }
            return new TaskState(taskName, sourceName, splits, operators);
        } catch (EOFException e) {
            throw new CheckpointCorruptedException(path, "it ends early");
        } catch (IOException | RuntimeException e) {
            if (e instanceof CheckpointCorruptedException corrupted) {
                throw corrupted;
            }
            throw new CheckpointCorruptedException(path, "it cannot be decoded (" + e + ")");
        }
    }

    private static KeyedSection readKeyed(ByteArrayDataInput in, byte[] bytes, short version)
            throws IOException {
        if (version < 3) {
            // Version 2: the heap backend's section inline, unframed: int states, (UTF name, byte
            // kind)*, int entries, int entries' length, the entries. Skip it to learn its extent.
            int start = in.position();
            int states = in.readInt();
            if (states < 0 || states > 65_536) {
                throw new IOException("impossible state count " + states);
            }
            for (int i = 0; i < states; i++) {
                in.readUTF();
                in.readByte();
            }
            int entries = in.readInt();
            int length = checkLength(in.readInt());
            if (entries < 0 || in.skipBytes(length) != length) {
                throw new EOFException("the keyed state section ends early");
            }
            return new KeyedSection(
                    LEGACY_HEAP_SECTION, entries, bytes, start, in.position() - start, List.of());
        }
        String backendId = in.readUTF();
        int keys = in.readInt();
        int fileCount = in.readInt();
        if (fileCount < 0 || fileCount > 1_000_000) {
            throw new IOException("impossible file count " + fileCount);
        }
        List<KeyedSection.ExternalFile> files = new ArrayList<>();
        for (int i = 0; i < fileCount; i++) {
            files.add(new KeyedSection.ExternalFile(in.readUTF(), in.readLong(), in.readLong()));
        }
        int length = checkLength(in.readInt());
        int start = in.position();
        if (in.skipBytes(length) != length) {
            throw new EOFException("the keyed state section ends early");
        }
        return new KeyedSection(backendId, keys, bytes, start, length, files);
    }

    /** Reads a whole file; a missing or unreadable file is a corruption naming it. */
    public static byte[] readAll(Path path) {
        try {
            return Files.readAllBytes(path);
        } catch (NoSuchFileException e) {
            throw new CheckpointCorruptedException(path, "the file is missing");
        } catch (IOException e) {
            throw new CheckpointCorruptedException(path, "it cannot be read (" + e + ")");
        }
    }
}
