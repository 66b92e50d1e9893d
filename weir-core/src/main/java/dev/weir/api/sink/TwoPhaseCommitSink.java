package dev.weir.api.sink;

import dev.weir.api.Guarantee;
import dev.weir.api.codec.Codec;
import java.time.Duration;

/**
 * A sink that writes into transactions which become visible only when the checkpoint covering them
 * is complete: exactly-once end to end with a replayable source and exactly-once checkpoints.
 *
 * <p>The committables of prepared, not yet committed transactions are part of each checkpoint
 * (written with {@link #committableCodec()}), so after a crash the next run commits them again and
 * aborts the rest. Weir refuses to start if {@link #transactionTimeout()} is not longer than the
 * checkpoint interval plus the checkpoint timeout plus the longest restart delay, since the
 * external system could then abort a transaction Weir still means to commit.
 *
 * @param <T> record type
 * @param <C> committable type
 */
public interface TwoPhaseCommitSink<T, C> extends Sink<T> {
    /**
     * Writes committables into checkpoints.
     *
     * @return a codec that later versions of the sink can still read, since a restore decodes
     *     committables an older version wrote
     */
    Codec<C> committableCodec();

    /**
     * Creates the writer of one sink subtask; called on that subtask's thread when the job (or a
     * restart attempt) starts, before any restored committable is committed.
     *
     * @param context the job, sink and subtask the writer serves, and the restored checkpoint
     * @return a new writer; the runtime closes it
     * @throws Exception if the writer cannot be opened; the task fails
     */
    TransactionalWriter<T, C> createTransactionalWriter(SinkContext context) throws Exception;

    /**
     * How long the external system keeps an open transaction; zero = forever.
     *
     * @return the external system's transaction timeout; {@link Duration#ZERO} by default
     */
    default Duration transactionTimeout() {
        return Duration.ZERO;
    }

    /**
     * The name of the setting behind {@link #transactionTimeout()} as the user knows it (such as
     * the external system's own property), for the refusal at start; empty if it has none.
     *
     * @return the setting's name, such as {@code "transaction.timeout.ms"}, or an empty string
     */
    default String transactionTimeoutSetting() {
        return "";
    }

    @Override
    default Guarantee guarantee() {
        return Guarantee.EXACTLY_ONCE;
    }

    /** Not used: the runtime calls {@link #createTransactionalWriter}. */
    @Override
    default SinkWriter<T> createWriter(SinkContext context) {
        throw new UnsupportedOperationException(
                "a two-phase-commit sink is written through createTransactionalWriter");
    }
}
