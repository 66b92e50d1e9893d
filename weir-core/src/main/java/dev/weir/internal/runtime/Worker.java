package dev.weir.internal.runtime;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * A thread that runs tasks cooperatively until they are done or the execution stops.
 *
 * <p>Each worker has <em>home</em> tasks, which it runs in turn, and helps with every other task
 * when a pass over its home tasks moved nothing: so a skewed job (all keys on one subtask, one slow
 * source, a function blocked on a remote call) keeps every core busy instead of leaving a worker
 * with idle home tasks. A task runs on one worker at a time ({@link Task#tryClaim}); the claim's
 * release and acquire order everything a task did on one thread before its next step on another,
 * which keeps every channel single-producer/single-consumer.
 *
 * <p>When neither its home tasks nor those it helps made progress, the worker backs off: spin, then
 * yield, then park for exponentially longer up to the configured maximum, so idle workers cost
 * little CPU while busy ones never sleep.
 */
final class Worker implements Runnable {
    private static final int SPINS = 20;
    private static final int YIELDS = 20;

    private final Execution execution;
    private final List<Task> home;
    private final List<Task> others;
    private final long maxParkNanos;
    private Task current;

    Worker(Execution execution, List<Task> home, List<Task> others, long maxParkNanos) {
        this.execution = execution;
        this.home = new ArrayList<>(home);
        this.others = new ArrayList<>(others);
        this.maxParkNanos = maxParkNanos;
    }

    @Override
    public void run() {
        int idle = 0;
        try {
            while ((!home.isEmpty() || !others.isEmpty()) && !execution.isStopping()) {
                boolean progress = pass(home) || pass(others);
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

    /**
     * One step of each task in {@code tasks} that no other worker is running; drops the done ones.
     * Returns true if any moved.
     */
    private boolean pass(List<Task> tasks) throws Exception {
        boolean progress = false;
        // One clock read per step: a step starts when the one before it ended (the claim between
        // them is counted with it). Jobs of many tasks take many short steps, and two reads per
        // step were 3 % of the workers' time in Nexmark q8.
        long now = System.nanoTime();
        for (int i = 0; i < tasks.size(); i++) {
            Task task = tasks.get(i);
            if (!task.tryClaim()) {
                continue;
            }
            try {
                if (task.isDone()) {
                    tasks.remove(i--); // finished on another worker, which reported it
                    continue;
                }
                current = task; // named in the failure if the step throws
                long start = now;
                task.beginStep(start);
                boolean moved = task.doWork();
                now = System.nanoTime();
                task.timeStep(moved, start, now); // metrics: per step, not record
                progress |= moved;
                current = null;
                if (task.isDone()) {
                    tasks.remove(i--);
                    execution.taskDone(task);
                }
            } finally {
                task.beginStep(0); // no step in progress, also after a step that threw
                task.release();
            }
        }
        return progress;
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
