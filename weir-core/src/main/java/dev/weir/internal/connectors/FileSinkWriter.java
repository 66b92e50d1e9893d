package dev.weir.internal.connectors;

import dev.weir.api.UnrecoverableException;
import dev.weir.api.sink.FileSink;
import dev.weir.api.sink.FileSink.Committable;
import dev.weir.api.sink.SinkContext;
import dev.weir.api.sink.TransactionalWriter;
import dev.weir.internal.io.DurableFiles;
import dev.weir.internal.testhooks.PowerCut;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The writer of one {@link FileSink} subtask: writes lines to a hidden {@code
 * .inprogress-<subtask>-<n>} file, rolls it (sync, rename to {@code .pending-…}) at a size or age
 * and at every barrier (phase 1), and renames the pending files of a complete checkpoint to their
 * visible {@code part-<subtask>-<checkpoint>-<k><suffix>} names, syncing the directory (phase 2).
 * After a restore it deletes its old subtasks' hidden files and refuses to run if it finds finished
 * files of its own for a checkpoint newer than the restored one. The protocol is described on
 * {@link FileSink}.
 *
 * <p>Called on the sink task's thread only, as {@link TransactionalWriter} says. Notes its writes,
 * syncs and renames for {@link PowerCut} when that is on.
 *
 * @param <T> record type
 */
public final class FileSinkWriter<T> implements TransactionalWriter<T, Committable> {
    /**
     * What a writer writes and when it rolls.
     *
     * @param lines formats a record as a line, without the newline
     * @param header written as the first line of every file, or null
     * @param suffix the finished files' name suffix, such as {@code .csv}
     * @param rollBytes rolls once a file has this many bytes
     * @param rollIntervalMillis rolls once a file is this old (0: never by time)
     * @param <T> record type
     */
    public record Settings<T>(
            Function<T, String> lines,
            String header,
            String suffix,
            long rollBytes,
            long rollIntervalMillis) {}

    private final Path dir;
    private final int subtask;
    private final long restoredCheckpointId;
    private final Settings<T> settings;
    private final List<String> rolled = new ArrayList<>();
    private FileChannel channel;
    private OutputStream out;
    private String current;
    private long bytes;
    private long openedAtMillis;
    private long counter = System.nanoTime();

    /** A writer into {@code dir}, which exists, for the subtask {@code context} names. */
    public FileSinkWriter(Path dir, SinkContext context, Settings<T> settings) {
        this.dir = dir;
        this.subtask = context.subtaskIndex();
        this.restoredCheckpointId = context.restoredCheckpointId();
        this.settings = settings;
    }

    @Override
    public void write(T record) throws IOException {
        if (out == null) {
            current = ".inprogress-" + subtask + "-" + (counter++);
            channel =
                    FileChannel.open(
                            dir.resolve(current),
                            StandardOpenOption.CREATE_NEW,
                            StandardOpenOption.WRITE);
            out = new BufferedOutputStream(Channels.newOutputStream(channel), 64 * 1024);
            bytes = 0;
            openedAtMillis = System.currentTimeMillis();
            if (settings.header() != null) {
                byte[] header = (settings.header() + "\n").getBytes(StandardCharsets.UTF_8);
                out.write(header);
                bytes += header.length;
            }
        }
        // The line and its newline written apart: no second string per record.
        String text;
        try {
            text = settings.lines().apply(record);
        } catch (IllegalArgumentException e) {
            // The format refuses this record, and a restart would replay it to the same refusal.
            throw new UnrecoverableException(
                    "file sink in "
                            + dir
                            + " cannot write a record: "
                            + e.getMessage()
                            + ". The record comes again after every restart, so the job fails"
                            + " now; change the format or the records it gets",
                    e);
        }
        byte[] line = text.getBytes(StandardCharsets.UTF_8);
        out.write(line);
        out.write('\n');
        bytes += line.length + 1;
        if (bytes >= settings.rollBytes()
                || (settings.rollIntervalMillis() > 0
                        && System.currentTimeMillis() - openedAtMillis
                                >= settings.rollIntervalMillis())) {
            roll();
        }
    }

    /** Syncs the open file and renames it to pending. */
    private void roll() throws IOException {
        if (out == null) {
            return;
        }
        out.flush();
        if (PowerCut.ON) {
            PowerCut.created(dir.resolve(current));
            PowerCut.wrote(dir.resolve(current), 0, bytes);
        }
        channel.force(true);
        if (PowerCut.ON) {
            PowerCut.synced(dir.resolve(current), bytes);
        }
        out.close();
        String pending = ".pending-" + current.substring(".inprogress-".length());
        Files.move(dir.resolve(current), dir.resolve(pending), StandardCopyOption.ATOMIC_MOVE);
        if (PowerCut.ON) {
            PowerCut.renamed(dir.resolve(current), dir.resolve(pending));
        }
        rolled.add(pending);
        out = null;
        channel = null;
        current = null;
    }

    @Override
    public Committable prepareCommit(long checkpointId) throws IOException {
        roll();
        if (rolled.isEmpty()) {
            return null;
        }
        DurableFiles.fsyncDirectory(dir);
        List<String> finished = new ArrayList<>();
        for (int k = 0; k < rolled.size(); k++) {
            finished.add(
                    String.format(
                            "part-%d-%011d-%d%s", subtask, checkpointId, k, settings.suffix()));
        }
        Committable committable = new Committable(List.copyOf(rolled), finished);
        rolled.clear();
        return committable;
    }

    @Override
    public void commit(Committable committable) throws IOException {
        for (int i = 0; i < committable.pending().size(); i++) {
            Path pending = dir.resolve(committable.pending().get(i));
            Path finished = dir.resolve(committable.finished().get(i));
            if (Files.exists(finished)) {
                if (Files.exists(pending)) {
                    // Two transactions claim one name: a checkpoint id was reused. Skipping
                    // would drop the pending records, renaming would drop the finished ones.
                    throw new IllegalStateException(
                            "file sink cannot commit "
                                    + pending
                                    + ": "
                                    + finished
                                    + " already holds another transaction's records, so a"
                                    + " checkpoint id was used twice; was the checkpoint"
                                    + " directory deleted or reset while the output directory"
                                    + " "
                                    + dir
                                    + " was kept? Start over with an empty output directory,"
                                    + " or restore the checkpoints");
                }
                continue; // committed before a crash: already done
            }
            if (!Files.exists(pending)) {
                // Not fixed by a restart, which would find it gone again.
                throw new dev.weir.api.UnrecoverableException(
                        "file sink cannot commit "
                                + finished
                                + ": its pending file "
                                + pending
                                + " is gone, and so is the part file it becomes when committed:"
                                + " files were deleted from "
                                + dir
                                + " by hand, and that output is lost. Put them back, or to write"
                                + " the input again start with CheckpointConfig resume \"none\""
                                + " into an empty directory");
            }
            Files.move(pending, finished, StandardCopyOption.ATOMIC_MOVE);
            if (PowerCut.ON) {
                PowerCut.renamed(pending, finished);
            }
        }
        DurableFiles.fsyncDirectory(dir);
    }

    @Override
    public void recoverOwned(List<Committable> committed, int subtask, int parallelism)
            throws IOException {
        Set<String> recommitted = new HashSet<>();
        for (Committable c : committed) {
            recommitted.addAll(c.finished());
        }
        boolean earlierOutput = false;
        try (Stream<Path> entries = Files.list(dir)) {
            for (Path file : (Iterable<Path>) entries::iterator) {
                String name = file.getFileName().toString();
                earlierOutput |= PART.matcher(name).matches();
                if (restoredCheckpointId >= 0 && !recommitted.contains(name)) {
                    refuseNewerOutput(name, subtask, parallelism);
                }
                String rest =
                        name.startsWith(".inprogress-")
                                ? name.substring(".inprogress-".length())
                                : name.startsWith(".pending-")
                                        ? name.substring(".pending-".length())
                                        : null;
                if (rest == null || rest.indexOf('-') < 0) {
                    continue;
                }
                int owner = Integer.parseInt(rest.substring(0, rest.indexOf('-')));
                if (owner % parallelism == subtask) {
                    Files.deleteIfExists(file);
                }
            }
        }
        DurableFiles.fsyncDirectory(dir);
        if (restoredCheckpointId < 0 && earlierOutput && subtask == 0) {
            // Allowed (the user asked for a fresh start), but not silently.
            org.slf4j.LoggerFactory.getLogger(FileSinkWriter.class)
                    .warn(
                            "file sink directory {} already holds committed output of an earlier"
                                    + " run, and this run started fresh (resume \"none\" or no"
                                    + " checkpointing): what it writes is added beside that"
                                    + " output, so input it reads again appears twice. Write to"
                                    + " an empty directory to keep runs apart",
                            dir);
        }
    }

    /**
     * Refuses a finished file this sink's subtasks committed for a checkpoint newer than the one
     * restored: that checkpoint completed and is lost, and replaying from the older one would write
     * its records again (see {@link SinkContext#restoredCheckpointId()}).
     */
    private void refuseNewerOutput(String name, int subtask, int parallelism) {
        Matcher part = PART.matcher(name);
        if (!part.matches()) {
            return;
        }
        int owner = Integer.parseInt(part.group(1));
        long checkpoint = Long.parseLong(part.group(2));
        if (owner % parallelism != subtask || checkpoint <= restoredCheckpointId) {
            return;
        }
        throw new UnrecoverableException(
                "file sink output "
                        + dir.resolve(name)
                        + " was committed for checkpoint "
                        + checkpoint
                        + ", but this run "
                        + (restoredCheckpointId == 0
                                ? "found no complete checkpoint to restore"
                                : "restored the older checkpoint " + restoredCheckpointId)
                        + ": a newer checkpoint or savepoint completed and this run did not"
                        + " restore it (was the job stopped with a savepoint? is a checkpoint's"
                        + " metadata lost? does another job write to this directory?), and"
                        + " replaying from there would write those records twice. Start from"
                        + " that savepoint or checkpoint (Pipeline.fromSavepoint), or to process"
                        + " the input"
                        + " again on purpose, write to an empty directory or start with"
                        + " CheckpointConfig resume \"none\"");
    }

    @Override
    public void close() throws IOException {
        if (out != null) {
            out.close();
        }
    }

    /** A finished file's name: subtask, checkpoint id, index. */
    private static final Pattern PART = Pattern.compile("part-(\\d{1,9})-(\\d{1,19})-\\d+\\..*");
}
