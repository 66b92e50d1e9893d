package dev.weir.api.source;

import dev.weir.api.codec.Codec;
import dev.weir.api.log.LogOptions;
import dev.weir.internal.connectors.CollectionSource;
import dev.weir.internal.connectors.FileSource;
import dev.weir.internal.connectors.LogSource;
import dev.weir.internal.connectors.SequenceSource;
import dev.weir.internal.connectors.SocketSource;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/** Built-in sources. */
public final class Sources {
    private Sources() {}

    /**
     * The numbers {@code from..to} inclusive, one split per source subtask; replayable. The splits
     * depend on the parallelism, so restore its checkpoints at the same parallelism, or use {@link
     * #sequence(long, long, int, long)}.
     *
     * @param from the first number
     * @param to the last number, inclusive; not below {@code from}
     * @return the source
     * @throws IllegalArgumentException if {@code to < from}
     */
    public static Source<Long> sequence(long from, long to) {
        return new SequenceSource(from, to, 0, 0);
    }

    /**
     * The numbers {@code from..to} inclusive in a fixed number of splits (so offsets map to the
     * same splits at any parallelism), at most {@code recordsPerSecond} in total (0 = unlimited).
     *
     * @param from the first number
     * @param to the last number, inclusive; not below {@code from}
     * @param splits the number of splits; 0 for one per source subtask
     * @param recordsPerSecond the total rate limit over all splits; 0 for none
     * @return the source
     * @throws IllegalArgumentException if {@code to < from}, or a count is negative
     */
    public static Source<Long> sequence(long from, long to, int splits, long recordsPerSecond) {
        return new SequenceSource(from, to, splits, recordsPerSecond);
    }

    /**
     * A topic of the embedded durable log at {@code directory}, decoded with {@code codec}; one
     * split per partition; replayable. Stops at the end the partitions had when reading started.
     * Delivers committed records only (see {@link dev.weir.api.log.DurableLog#read}), and reads
     * without taking the log's lock, so another job may write it meanwhile.
     *
     * @param <T> the record type
     * @param directory the log's directory
     * @param topic the topic to read; it must exist when the job starts
     * @param codec decodes each record's payload
     * @return the source
     */
    public static <T> Source<T> log(Path directory, String topic, Codec<T> codec) {
        return new LogSource<>(directory, topic, codec, true, LogOptions.defaults());
    }

    /**
     * Like {@link #log(Path, String, Codec)}, but keeps waiting for new records.
     *
     * @param <T> the record type
     * @param directory the log's directory
     * @param topic the topic to read; it must exist when the job starts
     * @param codec decodes each record's payload
     * @return a source that never ends
     */
    public static <T> Source<T> logUnbounded(Path directory, String topic, Codec<T> codec) {
        return new LogSource<>(directory, topic, codec, false, LogOptions.defaults());
    }

    /**
     * The lines of the files in {@code directory}; replayable (offset = file and byte position).
     * Names starting with '.' or '_' are skipped: write a file under such a name and rename it when
     * complete. The files are spread over {@value FileSource#DEFAULT_SPLITS} splits by name, each
     * read in file-name order, so lines keep their order within a file and a checkpoint restores at
     * any parallelism; see {@link #files(Path, int)}. Files must not change once written: a file
     * that a restore finds truncated or replaced under the position it had read to is named in a
     * warning, and reading goes on at its end or its next line; so is a file whose 64 KiB before
     * that position differ from what was read there (an edit such as {@code sed -i}), read on from
     * that position. Lines are read as UTF-8 (a CR before the LF dropped); bytes that are not UTF-8
     * become U+FFFD, and a warning names the file, once. A directory that does not exist fails the
     * job at once.
     *
     * @param directory the directory whose files are read; sub-directories are not
     * @return a source that ends when every file present at the start is read
     */
    public static Source<String> files(Path directory) {
        return files(directory, FileSource.DEFAULT_SPLITS);
    }

    /**
     * Like {@link #files(Path)} with {@code splits} splits: at most that many subtasks read at
     * once; 1 reads every file in name order. Fixed for the life of the job's checkpoints.
     *
     * @param directory the directory whose files are read
     * @param splits the number of splits, 1 to 10,000
     * @return the source
     * @throws IllegalArgumentException if {@code splits} is out of range
     */
    public static Source<String> files(Path directory, int splits) {
        return new FileSource(directory, false, 0, splits);
    }

    /**
     * Like {@link #files(Path)}, but also reads files that appear later, and lines appended to a
     * file it has read (each once, also across restores: its checkpoint keeps how far each file was
     * read), never ending. A line is read once its newline has arrived, as {@code tail -f} would: a
     * writer's block that ends mid-line does not split it, and a last line without a newline waits
     * for one. A file that shrinks below what was read (truncated or replaced) is not read again (a
     * warning says so); rotation by renaming is not recognised (a renamed file is a new name, read
     * from its start): rotate by writing new files instead.
     *
     * @param directory the directory to watch
     * @param pollInterval how often to list the directory for new files
     * @return a source that never ends
     */
    public static Source<String> filesWatching(Path directory, Duration pollInterval) {
        return filesWatching(directory, pollInterval, FileSource.DEFAULT_SPLITS);
    }

    /**
     * Like {@link #filesWatching(Path, Duration)} with {@code splits} splits.
     *
     * @param directory the directory to watch
     * @param pollInterval how often to list the directory for new files
     * @param splits the number of splits, 1 to 10,000; fixed for the life of the job's checkpoints
     * @return a source that never ends
     * @throws IllegalArgumentException if {@code splits} is out of range
     */
    public static Source<String> filesWatching(Path directory, Duration pollInterval, int splits) {
        return new FileSource(directory, true, pollInterval.toMillis(), splits);
    }

    /**
     * Lines from a TCP connection to {@code host:port}. Not replayable: a pipeline using it is
     * at-most-once end to end, and Weir warns at start.
     *
     * @param host the host to connect to
     * @param port the TCP port
     * @return a one-split source; it connects when the job starts, and fails the task if it cannot
     */
    public static Source<String> socket(String host, int port) {
        return new SocketSource(host, port);
    }

    /**
     * The elements of {@code elements}, in order, as one split; replayable.
     *
     * @param <T> the element type
     * @param elements the records, copied; none may be null
     * @return the source
     * @throws NullPointerException if {@code elements} or one of them is null
     */
    public static <T> Source<T> collection(List<T> elements) {
        return new CollectionSource<>(elements);
    }
}
