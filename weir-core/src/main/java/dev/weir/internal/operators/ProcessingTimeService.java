package dev.weir.internal.operators;

import java.util.PriorityQueue;
import java.util.function.LongSupplier;

/**
 * Processing-time callbacks of one task's operators (processing-time timers, periodic watermarks),
 * run on the task's own thread between its steps: {@link Task#doWork} calls {@link #fireDue} first
 * thing, which costs one comparison when nothing is due. Time is the job's injected clock, in
 * milliseconds, so tests drive it. Single-threaded.
 */
public final class ProcessingTimeService {
    /** Work to do at a processing time. */
    @FunctionalInterface
    public interface Callback {
        /** Runs at (or after) {@code time}, in milliseconds. */
        void onTime(long time) throws Exception;
    }

    private record Scheduled(long time, long sequence, Callback callback) {}

    private final LongSupplier clockMillis;
    private final PriorityQueue<Scheduled> queue =
            new PriorityQueue<>(
                    (a, b) ->
                            a.time != b.time
                                    ? Long.compare(a.time, b.time)
                                    : Long.compare(a.sequence, b.sequence));
    private long nextDue = Long.MAX_VALUE;
    private long sequence;

    public ProcessingTimeService(LongSupplier clockMillis) {
        this.clockMillis = clockMillis;
    }

    /** The clock now, in milliseconds since the epoch. */
    public long now() {
        return clockMillis.getAsLong();
    }

    /** Runs {@code callback} on the task once the clock reaches {@code time}. */
    public void schedule(long time, Callback callback) {
        queue.add(new Scheduled(time, sequence++, callback));
        nextDue = Math.min(nextDue, time);
    }

    /** Runs the callbacks due now; returns true if any ran. */
    public boolean fireDue() throws Exception {
        if (nextDue == Long.MAX_VALUE) {
            return false;
        }
        long now = now();
        if (now < nextDue) {
            return false;
        }
        boolean fired = false;
        Scheduled due;
        while ((due = queue.peek()) != null && due.time <= now) {
            queue.poll();
            due.callback.onTime(due.time);
            fired = true;
        }
        nextDue = queue.isEmpty() ? Long.MAX_VALUE : queue.peek().time;
        return fired;
    }

    /** True if callbacks are waiting (a task with some must keep polling its clock). */
    public boolean hasPending() {
        return !queue.isEmpty();
    }
}
