package dev.weir.internal.runtime;

/** An event that flows in-band with records through channels, in order with them. */
public sealed interface ControlEvent
        permits ControlEvent.Barrier, ControlEvent.Watermark, ControlEvent.EndOfInput {
    /**
     * Separates the records before checkpoint {@code checkpointId} from those after it (the
     * asynchronous barrier snapshot of Carbone et al., 2015).
     *
     * @param checkpointId the checkpoint this barrier belongs to
     * @param savepoint true if the checkpoint is a user-requested savepoint
     */
    record Barrier(long checkpointId, boolean savepoint) implements ControlEvent {}

    /**
     * Event time on this channel has reached {@code timestamp}: the producer will send no record
     * with a smaller one.
     *
     * @param timestamp milliseconds since the epoch; {@link Long#MAX_VALUE} at the end of input
     */
    record Watermark(long timestamp) implements ControlEvent {}

    /** The producing subtask will send nothing more on this channel. */
    record EndOfInput() implements ControlEvent {
        /** The single instance. */
        public static final EndOfInput INSTANCE = new EndOfInput();
    }
}
