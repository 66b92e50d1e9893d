package dev.weir.api.checkpoint;

/**
 * A job failed because its checkpoints kept failing: more in a row than {@link
 * CheckpointConfig#tolerableFailures()} allows. Its cause is the last checkpoint's failure.
 */
public class CheckpointFailedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * A failure with a message naming the cause and the fix.
     *
     * @param message how many checkpoints failed in a row and what to change
     * @param cause the last checkpoint's failure, such as its timeout or an I/O error
     */
    public CheckpointFailedException(String message, Throwable cause) {
        super(message, cause);
    }
}
