package dev.weir.internal.connectors;

import dev.weir.api.codec.Codec;
import dev.weir.api.function.Collector;
import dev.weir.api.log.DurableLog;
import dev.weir.api.log.LogOptions;
import dev.weir.api.source.ReadStatus;
import dev.weir.api.source.Source;
import dev.weir.api.source.SourceContext;
import dev.weir.api.source.SourceReader;
import dev.weir.internal.io.ByteArrayDataInput;
import dev.weir.internal.log.LogDirectory;
import dev.weir.internal.log.PartitionLog;
import dev.weir.internal.log.PartitionLogs;
import dev.weir.internal.log.PartitionReader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a topic of the embedded {@link DurableLog}: one split per partition, offset = the next
 * record's offset in the partition, so it resumes exactly at a checkpoint's offset. Bounded (stops
 * at the end each partition had when the reader opened) or unbounded (waits for new records).
 *
 * <p>Takes no lock: if this JVM writes the log it shares the writer's partitions, otherwise it
 * reads a view of what the writing process (if any) made durable, following its appends; so a job
 * can read a topic that a job in another process is writing.
 */
public final class LogSource<T> implements Source<T> {
    private final String directory;
    private final String topic;
    private final Codec<T> codec;
    private final boolean bounded;
    private final LogOptions options;

    public LogSource(
            Path directory, String topic, Codec<T> codec, boolean bounded, LogOptions options) {
        LogDirectory.checkTopicName(topic);
        this.directory = directory.toString();
        this.topic = topic;
        this.codec = codec;
        this.bounded = bounded;
        this.options = options;
    }

    @Override
    public String kind() {
        return "log";
    }

    @Override
    public boolean isReplayable() {
        return true;
    }

    @Override
    public List<String> splits(int parallelism) {
        int partitions;
        try (LogDirectory log = LogDirectory.openReadOnly(Path.of(directory), options)) {
            partitions = log.partitions(topic);
        }
        List<String> splits = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            splits.add(topic + "-" + p);
        }
        return splits;
    }

    @Override
    public SourceReader<T> openReader(String split, SourceContext context) throws Exception {
        int partition = Integer.parseInt(split.substring(split.lastIndexOf('-') + 1));
        Path root = PartitionLogs.canonical(Path.of(directory));
        PartitionLog log = PartitionLogs.openReadable(root, topic, partition, options);
        try {
            return new Reader(log, partition);
        } catch (Exception e) {
            PartitionLogs.close(log);
            throw e;
        }
    }

    /**
     * Reads committed data only: plain records at once; a transaction's records (published by
     * LogSink as BEGIN, data, COMMIT in one append) when its COMMIT arrives. A batch cut short by a
     * crash never delivers, and a new BEGIN of the same transaction discards what was buffered. The
     * reported position is the open batch's BEGIN, so a restore re-reads it whole.
     */
    private final class Reader implements SourceReader<T> {
        private final PartitionLog log;
        private final ByteArrayDataInput input = new ByteArrayDataInput();

        /**
         * True for Weir's own codecs ({@code Codecs.*}, ids {@code weir.*}), which read exactly
         * what they wrote: bytes left unread mean another writer's format. A codec of the user's
         * may skip bytes on purpose (fields a newer writer appended), so its records are not
         * checked.
         */
        private final boolean wholeRecords = codec.id().startsWith("weir.");

        private final List<T> open = new ArrayList<>();
        private PartitionReader reader;
        private long end;
        private long openTransaction = -1;
        private long openBegin;

        private final int partition;

        Reader(PartitionLog log, int partition) throws Exception {
            this.log = log;
            this.partition = partition;
            this.reader = PartitionLogs.reader(log, log.startOffset());
            this.end = bounded ? log.refresh() : Long.MAX_VALUE;
        }

        /**
         * Decodes the record at {@code offset}. A record the codec cannot read fails the job at
         * once, naming where it is: a restart would read the same bytes again.
         */
        private T decode(long offset, byte[] buffer, int at, int length) {
            T value;
            try {
                value = codec.decode(input.reset(buffer, at, length));
            } catch (Exception e) {
                throw undecodable(offset, length, e.toString(), e);
            }
            int left = at + length - input.position();
            if (left != 0 && wholeRecords) {
                // A codec that stops short read something else than what was written: its value
                // is wrong, and taking it would be silent corruption.
                throw undecodable(
                        offset,
                        length,
                        "the codec read "
                                + (length - left)
                                + " of them and left "
                                + left
                                + " unread",
                        null);
            }
            return value;
        }

        private dev.weir.api.UnrecoverableException undecodable(
                long offset, int length, String why, Exception cause) {
            return new dev.weir.api.UnrecoverableException(
                    "log topic '"
                            + topic
                            + "' partition "
                            + partition
                            + " in "
                            + directory
                            + ": the record at offset "
                            + offset
                            + " ("
                            + length
                            + " bytes) cannot be decoded with the source's codec "
                            + codec.id()
                            + " ("
                            + why
                            + "). Was it written with another codec? Read a topic with the codec"
                            + " its writer used. `weir log append` writes each line's bytes as"
                            + " they are, without the length Codecs.STRING reads first; `weir log"
                            + " append --codec string` writes what Codecs.STRING reads",
                    cause);
        }

        @Override
        public ReadStatus poll(Collector<T> out, int maxRecords) throws Exception {
            long remaining = end - reader.position();
            if (remaining <= 0) {
                return ReadStatus.END_OF_INPUT;
            }
            int read =
                    reader.read(
                            (offset, attributes, transaction, buffer, at, length) -> {
                                switch (attributes) {
                                    case PartitionLog.DATA ->
                                            out.collect(decode(offset, buffer, at, length));
                                    case PartitionLog.TXN_BEGIN -> {
                                        open.clear();
                                        openTransaction = transaction;
                                        openBegin = offset;
                                    }
                                    case PartitionLog.TXN_DATA -> {
                                        if (transaction == openTransaction) {
                                            open.add(decode(offset, buffer, at, length));
                                        }
                                    }
                                    case PartitionLog.TXN_COMMIT -> {
                                        if (transaction == openTransaction) {
                                            for (T record : open) {
                                                out.collect(record);
                                            }
                                            open.clear();
                                            openTransaction = -1;
                                        }
                                    }
                                    default ->
                                            throw new IllegalStateException(
                                                    "unknown record attributes "
                                                            + attributes
                                                            + " at offset "
                                                            + offset);
                                }
                            },
                            (int) Math.min(maxRecords, remaining));
            if (reader.position() >= end) {
                return ReadStatus.END_OF_INPUT;
            }
            return read > 0 ? ReadStatus.MORE_AVAILABLE : ReadStatus.NOTHING_AVAILABLE;
        }

        @Override
        public long position() {
            return openTransaction >= 0 ? openBegin : reader.position();
        }

        /**
         * The partition's published end (the bounded end, if smaller) minus the next offset to
         * read: a volatile read, no I/O.
         */
        @Override
        public long lag() {
            return Math.max(0, Math.min(end, log.endOffset()) - reader.position());
        }

        @Override
        public void seek(long position) throws Exception {
            reader = PartitionLogs.reader(log, position);
            open.clear();
            openTransaction = -1;
        }

        @Override
        public void close() {
            PartitionLogs.close(log);
        }
    }
}
