package dev.weir.api.testing;

import dev.weir.api.codec.Codec;
import dev.weir.api.codec.Codecs;
import dev.weir.api.sink.SinkContext;
import dev.weir.api.sink.TransactionalWriter;
import dev.weir.api.sink.TwoPhaseCommitSink;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A named test sink of a {@link PipelineTestDriver}: an in-memory system with transactions, written
 * through a real two-phase-commit sink, so {@link #committed()} is what an exactly-once sink would
 * have made visible.
 *
 * <p>Each sink subtask writes into an open transaction; at a checkpoint barrier it prepares it
 * (phase 1: the records move to the prepared transactions, named by subtask and checkpoint id), and
 * when the checkpoint is complete it commits it (phase 2: the records are appended to the committed
 * output). After a failure the restarted job commits the transactions its checkpoint holds again (a
 * no-op when already committed) and aborts the other prepared ones; open transactions are lost, and
 * the source replays their records. So the committed output holds every record once.
 *
 * <h2>How the methods are called</h2>
 *
 * {@link #committed()} and the other readers by the test's thread, at any time; the sink's writers
 * by the sink tasks on the job's worker threads. Thread-safe.
 *
 * @param <T> record type
 */
public final class TestOutput<T> {
    private final String name;
    private final Object lock;
    private final List<T> committed = new ArrayList<>();
    private final Set<String> committedTransactions = new HashSet<>();
    private final Map<String, Prepared<T>> prepared = new LinkedHashMap<>();

    /** The newest checkpoint id each subtask committed (0 before the first). */
    private final Map<Integer, Long> committedCheckpoint = new HashMap<>();

    private int parallelism = -1;

    /** A step's failure the test did not inject: reading the output throws it. Under the lock. */
    private final JobFailure jobFailure;

    TestOutput(String name, Object lock, JobFailure jobFailure) {
        this.name = name;
        this.lock = lock;
        this.jobFailure = jobFailure;
    }

    /**
     * The name the sink has in the pipeline. Any thread.
     *
     * @return the sink's name, as given to {@link PipelineTestDriver#output}
     */
    public String name() {
        return name;
    }

    /**
     * A copy of the committed records: per sink subtask in the order it wrote them, subtasks'
     * transactions in the order they were committed. Called by the test's thread, usually right
     * after {@link PipelineTestDriver#checkpoint()}.
     *
     * @return a new list the test may change; later commits do not show in it
     */
    public List<T> committed() {
        synchronized (lock) {
            jobFailure.throwIfAny("reading output '" + name + "'");
            return new ArrayList<>(committed);
        }
    }

    /**
     * How many transactions are prepared but not committed nor aborted. Any thread.
     *
     * @return the number of transactions prepared at a barrier and still waiting for their
     *     checkpoint
     */
    public int preparedTransactions() {
        synchronized (lock) {
            return prepared.size();
        }
    }

    /**
     * True if every subtask of the sink has committed checkpoint {@code checkpointId} or a later
     * one; under the lock.
     */
    boolean committedThrough(long checkpointId) {
        if (parallelism < 0) {
            return false;
        }
        for (int subtask = 0; subtask < parallelism; subtask++) {
            if (committedCheckpoint.getOrDefault(subtask, 0L) < checkpointId) {
                return false;
            }
        }
        return true;
    }

    TwoPhaseCommitSink<T, String> sink() {
        return new TransactionalTestSink<>(this);
    }

    private record Prepared<T>(int subtask, long checkpointId, List<T> records) {}

    private void opened(int sinkParallelism) {
        synchronized (lock) {
            parallelism = sinkParallelism;
        }
    }

    private void prepare(String transaction, int subtask, long checkpointId, List<T> records) {
        synchronized (lock) {
            prepared.put(transaction, new Prepared<>(subtask, checkpointId, records));
        }
    }

    private void commit(String transaction) {
        synchronized (lock) {
            if (committedTransactions.contains(transaction)) {
                return; // already committed: a restore commits its checkpoint's transactions again
            }
            Prepared<T> done = prepared.remove(transaction);
            if (done == null) {
                throw new IllegalStateException(
                        "test sink '"
                                + name
                                + "' was asked to commit transaction "
                                + transaction
                                + ", which was never prepared or was aborted: its records are"
                                + " lost");
            }
            committed.addAll(done.records());
            committedTransactions.add(transaction);
            committedCheckpoint.merge(done.subtask(), done.checkpointId(), Math::max);
            lock.notifyAll();
        }
    }

    private void abortOwned(List<String> keep, int subtask, int sinkParallelism) {
        synchronized (lock) {
            prepared.entrySet()
                    .removeIf(
                            e ->
                                    e.getValue().subtask() % sinkParallelism == subtask
                                            && !keep.contains(e.getKey()));
        }
    }

    /** The two-phase-commit sink over a {@link TestOutput}. */
    private static final class TransactionalTestSink<T> implements TwoPhaseCommitSink<T, String> {
        private static final long serialVersionUID = 1L;
        private final transient TestOutput<T> output;

        TransactionalTestSink(TestOutput<T> output) {
            this.output = output;
        }

        @Override
        public String kind() {
            return "test output";
        }

        @Override
        public Codec<String> committableCodec() {
            return Codecs.STRING;
        }

        @Override
        public TransactionalWriter<T, String> createTransactionalWriter(SinkContext context) {
            output.opened(context.parallelism());
            return new Writer<>(output, context.subtaskIndex());
        }
    }

    /** One sink subtask's writer; called on that sink task's thread only. */
    private static final class Writer<T> implements TransactionalWriter<T, String> {
        private final TestOutput<T> output;
        private final int subtask;
        private List<T> open = new ArrayList<>();

        Writer(TestOutput<T> output, int subtask) {
            this.output = output;
            this.subtask = subtask;
        }

        @Override
        public void write(T record) {
            open.add(record);
        }

        /**
         * Prepares even an empty transaction, so that every subtask commits every checkpoint and
         * the driver can tell when a checkpoint's output is all visible.
         */
        @Override
        public String prepareCommit(long checkpointId) {
            String transaction = subtask + "@" + checkpointId;
            output.prepare(transaction, subtask, checkpointId, open);
            open = new ArrayList<>();
            return transaction;
        }

        @Override
        public void commit(String transaction) {
            output.commit(transaction);
        }

        @Override
        public void recoverOwned(List<String> committed, int subtask, int parallelism) {
            output.abortOwned(committed, subtask, parallelism);
        }
    }
}
