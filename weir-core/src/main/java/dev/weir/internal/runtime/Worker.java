package dev.weir.internal.runtime;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * A thread that runs a fixed set of tasks cooperatively until they are done or the execution stops.
 *
 * <p>When no task made progress it backs off: spin, then yield, then park for exponentially longer
 * up to the configured maximum, so idle workers cost little CPU while busy ones never sleep.
 */
final class Worker implements Runnable {
    private static final int SPINS = 20;
    private static final int YIELDS = 20;

    private final Execution execution;
    private final List<Task> tasks;
    private final long maxParkNanos;

    Worker(Execution execution, List<Task> tasks, long maxParkNanos) {
        this.execution = execution;
        this.tasks = new ArrayList<>(tasks);
        this.maxParkNanos = maxParkNanos;
    }

    @Override
    public void run() {
        int idle = 0;
        Task current = null;
        try {
            while (!tasks.isEmpty() && !execution.isStopping()) {
                boolean progress = false;
                for (int i = 0; i < tasks.size(); i++) {
                    current = tasks.get(i);
                    progress |= current.doWork();
                    if (current.isDone()) {
                        tasks.remove(i--);
                        execution.taskDone(current);
                    }
                }
                current = null;
                if (progress) {
                    idle = 0;
                } else {
                    idle = backOff(idle);
                }
            }
        } catch (Throwable t) {
            execution.fail(current, t);
        }
    }

    private int backOff(int idle) {
        if (idle < SPINS) {
            Thread.onSpinWait();
        } else if (idle < SPINS + YIELDS) {
            Thread.yield();
        } else {
            int shift = Math.min(idle - SPINS - YIELDS, 20);
            LockSupport.parkNanos(Math.min(maxParkNanos, 1_000L << shift));
        }
        return idle + 1;
    }
}
