package dev.weir.internal.runtime;

import java.util.List;

/**
 * One subtask of a vertex: a chain of operators fed by a source or by input channels.
 *
 * <h2>How it is called</h2>
 *
 * A {@link Worker} calls {@link #doWork} repeatedly on its thread; each call does a bounded amount
 * of work (one input batch or one source poll) and returns whether anything moved, so one thread
 * can run many tasks (the cooperative model of Hazelcast Jet). Nothing in a call blocks. An
 * exception fails the task and, through the {@link Execution}, the job.
 */
public final class Task {
    /** Lifecycle of a task. */
    enum State {
        /** Not opened yet; the first {@code doWork} opens the operators and readers. */
        CREATED,
        /** Processing input. */
        RUNNING,
        /** Input ended and operators finished; sending the last batches and end-of-input. */
        DRAINING,
        /** Everything sent; the task will do nothing more. */
        DONE
    }

    private final String name;
    private final int batchSize;
    private final SourceDriver source;
    private final InputGate inputs;
    private final Output head;
    private final Output sourceOutput;
    private final List<StreamOperator> operators;
    private final List<OperatorContext> contexts;
    private final List<RecordWriter> writers;
    private State state = State.CREATED;

    Task(
            String name,
            int batchSize,
            SourceDriver source,
            Output sourceOutput,
            InputGate inputs,
            Output head,
            List<StreamOperator> operators,
            List<OperatorContext> contexts,
            List<RecordWriter> writers) {
        this.name = name;
        this.batchSize = batchSize;
        this.source = source;
        this.sourceOutput = sourceOutput;
        this.inputs = inputs;
        this.head = head;
        this.operators = List.copyOf(operators);
        this.contexts = List.copyOf(contexts);
        this.writers = List.copyOf(writers);
    }

    public String name() {
        return name;
    }

    boolean isDone() {
        return state == State.DONE;
    }

    /** Does a bounded amount of work; returns true if anything moved. */
    boolean doWork() throws Exception {
        switch (state) {
            case CREATED:
                open();
                state = State.RUNNING;
                return true;
            case RUNNING:
                if (drainWriters()) {
                    return true;
                }
                if (anyPending()) {
                    return false;
                }
                boolean progress = source != null ? pollSource() : pollInput();
                flushWriters();
                return progress;
            case DRAINING:
                boolean moved = drainWriters();
                if (!anyPending()) {
                    state = State.DONE;
                    return true;
                }
                return moved;
            default:
                return false;
        }
    }

    private void open() throws Exception {
        for (int i = 0; i < operators.size(); i++) {
            operators.get(i).open(contexts.get(i));
        }
        if (source != null) {
            source.open();
        }
    }

    private boolean pollSource() throws Exception {
        boolean progress = source.poll(sourceOutput, batchSize);
        if (source.ended()) {
            endOfInput();
            return true;
        }
        return progress;
    }

    private boolean pollInput() throws Exception {
        Object item = inputs.pollNext();
        if (item == null) {
            return false;
        }
        if (item instanceof Object[] batch) {
            Output head = this.head;
            for (Object record : batch) {
                head.collect(record);
            }
        } else if (item instanceof ControlEvent.EndOfInput) {
            inputs.endLastChannel();
            if (inputs.allEnded()) {
                endOfInput();
            }
        } else {
            throw new IllegalStateException(name + ": unexpected item on channel: " + item);
        }
        return true;
    }

    private void endOfInput() throws Exception {
        for (StreamOperator operator : operators) {
            operator.finish();
        }
        for (RecordWriter writer : writers) {
            writer.broadcastEvent(ControlEvent.EndOfInput.INSTANCE);
        }
        state = State.DRAINING;
    }

    private boolean drainWriters() {
        int sent = 0;
        for (RecordWriter writer : writers) {
            sent += writer.drain();
        }
        return sent > 0;
    }

    private boolean anyPending() {
        for (RecordWriter writer : writers) {
            if (writer.hasPending()) {
                return true;
            }
        }
        return false;
    }

    private void flushWriters() {
        for (RecordWriter writer : writers) {
            writer.flush();
        }
    }

    /** Closes operators and readers; called once after the task's worker has stopped. */
    void close() throws Exception {
        Exception first = null;
        if (source != null) {
            try {
                source.close();
            } catch (Exception e) {
                first = e;
            }
        }
        for (StreamOperator operator : operators) {
            try {
                operator.close();
            } catch (Exception e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    @Override
    public String toString() {
        return name + "[" + state + "]";
    }
}
