package dev.weir.api.checkpoint;

import java.nio.file.Path;

/**
 * A checkpoint or savepoint on disk is damaged: a checksum does not match, a file is missing or
 * short, or the manifest is torn. Weir never falls back silently to an older checkpoint, because
 * the newer one's sink commits may already have run and replaying from the older one would
 * duplicate output.
 */
public final class CheckpointCorruptedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** The damaged or missing file, as text: a {@link Path} does not serialise. */
    private final String file;

    /**
     * A damaged checkpoint file. The message says what to do: restore the file, or resume from an
     * explicit older checkpoint.
     *
     * @param file the damaged or missing file
     * @param problem what is wrong with it, such as {@code "checksum mismatch"}
     */
    public CheckpointCorruptedException(Path file, String problem) {
        super(
                "checkpoint file "
                        + file
                        + " is corrupt: "
                        + problem
                        + ". Weir will not silently restore an older checkpoint (its successor's"
                        + " sink commits may have run, so output would be duplicated). Restore"
                        + " the file from a backup, or start from an explicit older checkpoint or"
                        + " savepoint with resume=<path> if you know no commits of this one ran.");
        this.file = file.toString();
    }

    /**
     * The damaged or missing file.
     *
     * @return its path, as the manifest names it under the checkpoint directory
     */
    public Path file() {
        return Path.of(file);
    }
}
