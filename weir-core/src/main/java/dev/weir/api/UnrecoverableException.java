package dev.weir.api;

/**
 * A failure that a restart cannot fix, such as a wrong configuration or a table that does not
 * exist: the job fails at once with this message instead of spending its restart budget on it.
 * Connectors throw it (or wrap their cause in it) from their writers and readers; the message names
 * the cause and the fix.
 */
public class UnrecoverableException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * A failure with a message that names its cause and its fix.
     *
     * @param message what went wrong and what to change
     */
    public UnrecoverableException(String message) {
        super(message);
    }

    /**
     * A failure with a message that names its cause and its fix, caused by {@code cause}.
     *
     * @param message what went wrong and what to change
     * @param cause the underlying failure
     */
    public UnrecoverableException(String message, Throwable cause) {
        super(message, cause);
    }

    /**
     * True if {@code failure} or one of its causes is an {@code UnrecoverableException}, or damage
     * a restart would only read again: a {@link dev.weir.api.log.LogCorruptedException} (committed
     * log data that fails its checksum) or a {@link
     * dev.weir.api.checkpoint.CheckpointCorruptedException}.
     *
     * @param failure a failure, possibly null
     * @return true if no restart should be tried for it
     */
    public static boolean isUnrecoverable(Throwable failure) {
        // At most 100 causes: they can form a loop (a.initCause(b); b.initCause(a)).
        int depth = 0;
        for (Throwable t = failure; t != null && depth < 100; t = t.getCause(), depth++) {
            if (t instanceof UnrecoverableException
                    || t instanceof dev.weir.api.log.LogCorruptedException
                    || t instanceof dev.weir.api.checkpoint.CheckpointCorruptedException) {
                return true;
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return false;
    }
}
