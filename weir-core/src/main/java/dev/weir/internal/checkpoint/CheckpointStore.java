package dev.weir.internal.checkpoint;

import dev.weir.api.testing.FaultPoint;
import dev.weir.internal.io.DirectoryLock;
import dev.weir.internal.io.DurableFiles;
import dev.weir.internal.testhooks.FaultPoints;
import dev.weir.internal.testhooks.PowerCut;
import dev.weir.internal.testhooks.SeededBugs;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checkpoints on local disk: {@code <directory>/chk-<id>/} holds one state file per task and, once
 * complete, a {@link Manifest}.
 *
 * <p>Ids only grow, across restarts too: the next id is one more than the largest {@code chk-}
 * directory present, complete or not, or than the id of the newest aborted checkpoint, whose
 * directory is deleted but whose id is kept in {@code _max-aborted-id}. Thread-safe for the
 * coordinator's use: one writer.
 *
 * <p>One job at a time: the store holds an exclusive OS lock on the directory until {@link #close},
 * so a second job (in this process or another) on the same directory is refused instead of
 * numbering its checkpoints from the same point as the first and mixing their files.
 */
public final class CheckpointStore implements CheckpointStorage {
    private static final Logger LOG = LoggerFactory.getLogger(CheckpointStore.class);
    private static final String PREFIX = "chk-";

    /** How a savepoint's directory is named, in the directory it was written into. */
    private static final String SAVEPOINT_PREFIX = "savepoint-";

    /** A task's state file in a checkpoint is {@code task-<task>.state}. */
    private static final String TASK_STATE_PREFIX = "task-";

    private static final String TASK_STATE_SUFFIX = ".state";

    /** Ends the messages of {@link #refuseWrongRestorePath}. */
    private static final String RESUME_WORDS =
            ". A resume setting is \"latest\", \"none\" or such a path";

    private static final String MAX_ABORTED = "_max-aborted-id";

    /**
     * A savepoint's reference in the checkpoint directory, {@code _savepoint-<id>}, holding its
     * path: a savepoint's output is committed like a checkpoint's, so until a newer checkpoint
     * completes it is the state a restart must restore (see {@link #latestIn}).
     */
    private static final String SAVEPOINT_REF_PREFIX = "_savepoint-";

    /** The file holding the directory's job instance id (see {@link #instanceId()}). */
    public static final String INSTANCE_ID = "_instance-id";

    private final Path directory;
    private final int retained;
    private final DirectoryLock lock;
    private final String instanceId;

    /** Opens (creating if needed) and locks the checkpoint directory {@code directory}. */
    public CheckpointStore(Path directory, int retained) {
        this.directory = directory;
        this.retained = retained;
        try {
            Files.createDirectories(directory);
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot create checkpoint directory "
                            + directory
                            + " ("
                            + e
                            + "); choose a writable CheckpointConfig directory",
                    e);
        }
        this.lock = DirectoryLock.acquire(directory, "checkpoint directory");
        try {
            this.instanceId = readOrCreateInstanceId(directory);
        } catch (RuntimeException e) {
            lock.close();
            throw e;
        }
    }

    /**
     * The id of the job instance that owns {@code directory}: read from its {@code _instance-id},
     * or, the first time a job uses the directory, a new random id written there durably. Taken
     * under the directory's lock, so two jobs cannot both create it.
     */
    private static String readOrCreateInstanceId(Path directory) {
        Path file = directory.resolve(INSTANCE_ID);
        try {
            if (Files.exists(file)) {
                String id =
                        Files.readString(file, java.nio.charset.StandardCharsets.US_ASCII).trim();
                if (id.isEmpty() || !id.matches("[0-9a-fA-F-]{1,64}")) {
                    throw new IllegalStateException(
                            "checkpoint directory "
                                    + directory
                                    + " has a damaged "
                                    + INSTANCE_ID
                                    + " ('"
                                    + id
                                    + "'); it names the job instance that owns the directory"
                                    + " (sinks use it to tell this job's transactions from another"
                                    + " job's): restore it from a backup, or delete it to give the"
                                    + " directory a new identity (a Kafka sink then refuses to"
                                    + " take over the old one's transactional id prefix until"
                                    + " told to)");
                }
                return id;
            }
            String id = java.util.UUID.randomUUID().toString();
            DurableFiles.writeAtomically(
                    file, (id + "\n").getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            return id;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read or create " + file + " (" + e + ")", e);
        }
    }

    /**
     * The job instance id kept in this directory: created once, the first time a job used it, and
     * the same for every later run on it.
     */
    @Override
    public String instanceId() {
        return instanceId;
    }

    /** Releases the directory for the next job. */
    @Override
    public void close() {
        lock.close();
    }

    @Override
    public Path begin(long id, Path savepointParent) throws IOException {
        Path checkpoint =
                savepointParent != null
                        ? savepointParent.resolve(String.format("%s%011d", SAVEPOINT_PREFIX, id))
                        : checkpointDirectory(id);
        if (savepointParent != null) {
            // A savepoint's id is used outside this directory: record it first, so that a run
            // resumed here after it (or from it) never numbers a checkpoint with it again.
            raiseUsedOutside(id);
        }
        Files.createDirectories(checkpoint);
        if (PowerCut.ON) {
            PowerCut.created(checkpoint);
        }
        return checkpoint;
    }

    /** Durably records {@code id} as used if it is larger than every id recorded so far. */
    private void raiseUsedOutside(long id) throws IOException {
        if (id > maxAbortedId()) {
            DurableFiles.writeAtomically(
                    directory.resolve(MAX_ABORTED),
                    (id + "\n").getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        }
    }

    @Override
    public Manifest.FileEntry writeTaskState(Path checkpoint, String taskName, byte[] bytes)
            throws IOException {
        String fileName = TASK_STATE_PREFIX + taskName.replace('#', '-') + TASK_STATE_SUFFIX;
        FaultPoints.reach(FaultPoint.SNAPSHOT_BEFORE_WRITE);
        DurableFiles.writeDurably(
                checkpoint.resolve(fileName),
                bytes,
                FaultPoint.SNAPSHOT_MID_WRITE,
                FaultPoint.SNAPSHOT_BEFORE_FSYNC);
        CRC32C crc = new CRC32C();
        crc.update(bytes);
        return new Manifest.FileEntry(fileName, bytes.length, crc.getValue());
    }

    @Override
    public void commit(Path checkpoint, Manifest manifest) throws IOException {
        FaultPoints.reach(FaultPoint.CHECKPOINT_ALL_ACKNOWLEDGED);
        DurableFiles.fsyncDirectory(checkpoint);
        // The checkpoint directory's own entry: without this a power cut after the commits could
        // take the whole checkpoint away (found by weir verify's power-cut emulation).
        if (!SeededBugs.CHECKPOINT_DIRECTORY_WITHOUT_FSYNC) {
            DurableFiles.fsyncDirectory(checkpoint.getParent());
        }
        DurableFiles.writeAtomically(
                checkpoint.resolve(Manifest.FILE_NAME),
                manifest.toBytes(),
                FaultPoint.MANIFEST_BEFORE_RENAME);
        if (manifest.savepoint()) {
            // Before any sink hears of it and commits its output: from then on a restart that
            // restored an older checkpoint would write that output twice.
            DurableFiles.writeAtomically(
                    savepointRef(directory, manifest.checkpointId()),
                    checkpoint
                            .toAbsolutePath()
                            .toString()
                            .getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }
        FaultPoints.reach(FaultPoint.CHECKPOINT_MANIFEST_WRITTEN);
    }

    private static Path savepointRef(Path directory, long id) {
        return directory.resolve(String.format("%s%011d", SAVEPOINT_REF_PREFIX, id));
    }

    @Override
    public void abort(Path checkpoint, long id, boolean savepoint) throws IOException {
        if (savepoint) {
            DurableFiles.deleteRecursively(checkpoint);
        } else {
            deleteAborted(id);
        }
    }

    public Path directory() {
        return directory;
    }

    /** The directory checkpoint {@code id} is written to. */
    public Path checkpointDirectory(long id) {
        return directory.resolve(String.format("%s%011d", PREFIX, id));
    }

    /** One more than the largest checkpoint id ever used here (1 for an empty directory). */
    public long nextCheckpointId() {
        long largest = ids().stream().mapToLong(Long::longValue).max().orElse(0);
        return Math.max(largest, maxAbortedId()) + 1;
    }

    private long maxAbortedId() {
        Path file = directory.resolve(MAX_ABORTED);
        if (!Files.exists(file)) {
            return 0;
        }
        try {
            return Long.parseLong(Files.readString(file).trim());
        } catch (IOException | NumberFormatException e) {
            throw new IllegalStateException(
                    "cannot read "
                            + file
                            + " ("
                            + e
                            + "), which keeps checkpoint ids growing after aborted checkpoints;"
                            + " write into it the largest chk- id this directory ever had, or the"
                            + " largest id in its sinks' output",
                    e);
        }
    }

    /**
     * Deletes the directory of aborted checkpoint {@code id}, first recording its id durably if it
     * is the largest, so the next run does not reuse it. If that record cannot be written (a full
     * disk), the directory is deleted all the same when a newer {@code chk-} directory exists: that
     * one keeps the ids up to its own from reuse, as {@link #prune} relies on too, and is itself
     * deleted only under the same rule. Otherwise the write's failure is thrown and the directory
     * stays.
     */
    public void deleteAborted(long id) throws IOException {
        Path dir = checkpointDirectory(id);
        if (Files.exists(dir.resolve(Manifest.FILE_NAME))) {
            return; // complete after all (a failure after the manifest): keep it
        }
        try {
            raiseUsedOutside(id);
        } catch (IOException e) {
            if (ids().stream().noneMatch(other -> other > id)) {
                undeleted.add(id);
                throw e;
            }
            LOG.debug("deleting aborted checkpoint {} without recording its id: {}", dir, e);
        }
        deleteQuietly(dir);
        undeleted.remove(id);
    }

    /**
     * Aborted checkpoints of this process whose directories stayed (see {@link #deleteAborted}):
     * known to be aborted, unlike other directories without a manifest, which may be complete
     * checkpoints whose manifest was lost and which the user may still put back. The store lives as
     * long as the job in this process, across the restart strategy's attempts.
     */
    private final java.util.Set<Long> undeleted =
            java.util.concurrent.ConcurrentHashMap.newKeySet();

    @Override
    public void retryAborted() {
        for (long id : new java.util.TreeSet<>(undeleted)) {
            try {
                deleteAborted(id);
            } catch (IOException stillFull) {
                // still the newest: it stays, as said when it first failed
            }
        }
    }

    /** Checkpoint ids present, complete or not, ascending. */
    public List<Long> ids() {
        List<Long> ids = new ArrayList<>();
        try (Stream<Path> entries = Files.list(directory)) {
            entries.forEach(
                    path -> {
                        String name = path.getFileName().toString();
                        if (name.startsWith(PREFIX) && Files.isDirectory(path)) {
                            try {
                                ids.add(Long.parseLong(name.substring(PREFIX.length())));
                            } catch (NumberFormatException e) {
                                // not ours
                            }
                        }
                    });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        ids.sort(Comparator.naturalOrder());
        return ids;
    }

    /**
     * The newest checkpoint that has a manifest. A newer directory without one never completed (its
     * commits never ran), so skipping it is safe; whether the returned one is intact is checked
     * when it is read.
     */
    public Optional<Path> latestComplete(long minId) {
        return latestIn(directory, dev.weir.internal.testhooks.SeededBugs.FALLBACK_OLDER, minId);
    }

    /**
     * What a restart restores from the checkpoint directory {@code directory}: its newest complete
     * checkpoint, or a savepoint this job took after it (its sinks committed the savepoint's
     * output, as they do a checkpoint's; a stop-with-savepoint leaves the job there). Refuses,
     * naming the fix, when that savepoint is gone: the older checkpoint would write its output
     * twice. Reads only.
     *
     * @param skipNewest the seeded bug {@code FALLBACK_OLDER}: fall back past the newest
     */
    public static Optional<Path> latestIn(Path directory, boolean skipNewest) {
        return latestIn(directory, skipNewest, 0);
    }

    /** {@link #latestIn(Path, boolean)} among ids of at least {@code minId}. */
    public static Optional<Path> latestIn(Path directory, boolean skipNewest, long minId) {
        TreeMap<Long, Path> candidates = new TreeMap<>();
        try (Stream<Path> entries = Files.list(directory)) {
            for (Path entry : (Iterable<Path>) entries::iterator) {
                String name = entry.getFileName().toString();
                long checkpoint = idAfter(name, PREFIX);
                long ref = idAfter(name, SAVEPOINT_REF_PREFIX);
                if (checkpoint > 0
                        && checkpoint >= minId
                        && Files.exists(entry.resolve(Manifest.FILE_NAME))) {
                    candidates.put(checkpoint, entry);
                } else if (ref > 0 && ref >= minId) {
                    candidates.put(ref, entry);
                }
            }
        } catch (java.nio.file.NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        for (Map.Entry<Long, Path> newest : candidates.descendingMap().entrySet()) {
            if (skipNewest) {
                skipNewest = false;
                continue;
            }
            Path candidate = newest.getValue();
            if (!candidate.getFileName().toString().startsWith(SAVEPOINT_REF_PREFIX)) {
                return Optional.of(candidate);
            }
            return Optional.of(referencedSavepoint(candidate, newest.getKey(), candidates));
        }
        return Optional.empty();
    }

    /** The savepoint {@code ref} names, refused with the way out if it is gone. */
    private static Path referencedSavepoint(Path ref, long id, TreeMap<Long, Path> candidates) {
        Path savepoint;
        try {
            savepoint =
                    Path.of(Files.readString(ref, java.nio.charset.StandardCharsets.UTF_8).trim());
        } catch (IOException | RuntimeException e) {
            throw new IllegalStateException(
                    "cannot read "
                            + ref
                            + " ("
                            + e
                            + "), which names savepoint "
                            + id
                            + ": the newest state of this job, since its sinks committed that"
                            + " savepoint's output. Pass the savepoint to Pipeline.fromSavepoint,"
                            + " or start with CheckpointConfig resume \"none\" to process the"
                            + " input again on purpose",
                    e);
        }
        if (Files.exists(savepoint.resolve(Manifest.FILE_NAME))) {
            return savepoint;
        }
        Map.Entry<Long, Path> older = candidates.lowerEntry(id);
        throw new IllegalStateException(
                "savepoint "
                        + id
                        + " at "
                        + savepoint
                        + " is gone (no "
                        + Manifest.FILE_NAME
                        + " there), but it is this job's newest state: its sinks committed the"
                        + " savepoint's output, and no checkpoint completed after it"
                        + (older == null
                                ? ""
                                : " (restoring the older "
                                        + older.getValue()
                                        + " would write"
                                        + " that output twice)")
                        + ". Put the savepoint back at that path, or pass a copy of it to"
                        + " Pipeline.fromSavepoint; to process the input again on purpose, start"
                        + " with CheckpointConfig resume \"none\" and an empty output, then"
                        + " delete "
                        + ref);
    }

    /** The id in {@code name} after {@code prefix}, or -1 if it is not such a name. */
    private static long idAfter(String name, String prefix) {
        if (!name.startsWith(prefix) || name.length() == prefix.length()) {
            return -1;
        }
        try {
            return Long.parseLong(name.substring(prefix.length()));
        } catch (NumberFormatException e) {
            return -1; // not ours
        }
    }

    /**
     * Deletes complete checkpoints beyond the newest {@code retained}, and incomplete ones older
     * than the newest complete one that are not in flight ({@code oldestInFlight} and newer are
     * kept).
     */
    public void prune(long oldestInFlight) {
        List<Long> complete = new ArrayList<>();
        List<Long> incomplete = new ArrayList<>();
        for (long id : ids()) {
            Path dir = checkpointDirectory(id);
            (Files.exists(dir.resolve(Manifest.FILE_NAME)) ? complete : incomplete).add(id);
        }
        for (int i = 0; i < complete.size() - retained; i++) {
            deleteQuietly(checkpointDirectory(complete.get(i)));
        }
        long newestComplete = complete.isEmpty() ? 0 : complete.get(complete.size() - 1);
        for (long id : incomplete) {
            if (id < newestComplete && id < oldestInFlight) {
                deleteQuietly(checkpointDirectory(id));
            }
        }
        // A savepoint's reference is needed only until a newer checkpoint completes (the
        // savepoint itself is the user's: never deleted here).
        try (Stream<Path> entries = Files.list(directory)) {
            for (Path entry : (Iterable<Path>) entries::iterator) {
                long id = idAfter(entry.getFileName().toString(), SAVEPOINT_REF_PREFIX);
                if (id > 0 && id < newestComplete) {
                    Files.deleteIfExists(entry);
                }
            }
        } catch (IOException e) {
            LOG.warn(
                    "could not delete old savepoint references in {}: {}", directory, e.toString());
        }
    }

    /**
     * Refuses a path given to restore from that holds no checkpoint of its own: one that does not
     * exist, an empty directory, a checkpoint directory or the directory savepoints were written
     * into (naming the newest checkpoint or savepoint inside), instead of calling its missing
     * manifest corrupt. Returns for a checkpoint or savepoint, and for a directory with files but
     * no manifest (its load reports the missing or torn manifest).
     */
    public static void refuseWrongRestorePath(Path path) {
        if (!Files.exists(path)) {
            throw new IllegalArgumentException(
                    "no checkpoint or savepoint at "
                            + path.toAbsolutePath()
                            + ": the path does not exist. Pass the directory of one checkpoint"
                            + " (chk-...) or savepoint (savepoint-...), e.g. the path"
                            + " CheckpointStats.path() returned; weir inspect <checkpoint"
                            + " directory> lists them"
                            + RESUME_WORDS);
        }
        if (!Files.isDirectory(path)) {
            throw new IllegalArgumentException(
                    "no checkpoint or savepoint at "
                            + path.toAbsolutePath()
                            + ": it is a file, not a directory. Pass the directory of one"
                            + " checkpoint (chk-...) or savepoint (savepoint-...), the one that"
                            + " holds "
                            + Manifest.FILE_NAME
                            + RESUME_WORDS);
        }
        if (Files.exists(path.resolve(Manifest.FILE_NAME))) {
            return;
        }
        List<String> savepoints = new ArrayList<>();
        List<String> checkpoints = new ArrayList<>();
        List<String> withoutManifest = new ArrayList<>();
        boolean stateFiles = false;
        try (Stream<Path> children = Files.list(path)) {
            for (Path child : (Iterable<Path>) children::iterator) {
                String name = child.getFileName().toString();
                boolean complete = Files.exists(child.resolve(Manifest.FILE_NAME));
                if (name.startsWith(SAVEPOINT_PREFIX) && complete) {
                    savepoints.add(name);
                } else if (name.startsWith(PREFIX) && complete) {
                    checkpoints.add(name);
                } else if ((name.startsWith(SAVEPOINT_PREFIX) || name.startsWith(PREFIX))
                        && Files.isDirectory(child)) {
                    withoutManifest.add(name);
                } else if (name.startsWith(TASK_STATE_PREFIX) && name.endsWith(TASK_STATE_SUFFIX)) {
                    stateFiles = true; // a checkpoint's: this one's manifest is missing
                }
            }
        } catch (IOException e) {
            return; // the load reports what it cannot read
        }
        if (savepoints.isEmpty() && checkpoints.isEmpty()) {
            if (!stateFiles && !withoutManifest.isEmpty()) {
                java.util.Collections.sort(withoutManifest);
                throw new IllegalArgumentException(
                        "no complete checkpoint or savepoint at "
                                + path.toAbsolutePath()
                                + ": it holds "
                                + String.join(", ", withoutManifest)
                                + " without a _manifest (never completed, or its manifest was lost:"
                                + " put it back, then pass that directory)"
                                + RESUME_WORDS);
            }
            if (!stateFiles) {
                throw new IllegalArgumentException(
                        "no checkpoint or savepoint at "
                                + path.toAbsolutePath()
                                + ": the directory holds none (no _manifest or task state files,"
                                + " no chk-... or savepoint-... inside). Pass the directory of one"
                                + " checkpoint or savepoint, e.g. the path CheckpointStats.path()"
                                + " returned"
                                + RESUME_WORDS);
            }
            return; // state files but no manifest: the load reports a missing or torn manifest
        }
        java.util.Collections.sort(savepoints);
        java.util.Collections.sort(checkpoints);
        if (savepoints.isEmpty()) {
            throw new IllegalArgumentException(
                    path
                            + " is a checkpoint directory, not one checkpoint: it holds "
                            + String.join(", ", checkpoints)
                            + ". Pass one of them, e.g. Pipeline.fromSavepoint("
                            + path.resolve(checkpoints.get(checkpoints.size() - 1))
                            + ") (the newest), or start the pipeline with checkpointing on this"
                            + " directory to resume from its newest checkpoint");
        }
        throw new IllegalArgumentException(
                path
                        + " is the directory savepoints were written into, not a savepoint: it"
                        + " holds "
                        + String.join(", ", savepoints)
                        + ". Pass one of them, e.g. Pipeline.fromSavepoint("
                        + path.resolve(savepoints.get(savepoints.size() - 1))
                        + ") (the newest), or the path CheckpointStats.path() returned");
    }

    /** Deletes a checkpoint directory, its manifest first so it is never seen half-deleted. */
    public static void deleteQuietly(Path dir) {
        try {
            Files.deleteIfExists(dir.resolve(Manifest.FILE_NAME));
            try (Stream<Path> files = Files.list(dir)) {
                for (Path file : (Iterable<Path>) files::iterator) {
                    Files.deleteIfExists(file);
                }
            }
            Files.deleteIfExists(dir);
        } catch (java.nio.file.NoSuchFileException e) {
            LOG.debug("old checkpoint {} was already gone: {}", dir, e.toString());
        } catch (IOException e) {
            LOG.warn("could not delete old checkpoint {}: {}", dir, e.toString());
        }
    }
}
