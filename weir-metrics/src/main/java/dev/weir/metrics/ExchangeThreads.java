package dev.weir.metrics;

import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The threads a loopback HTTP server answers on: up to a fixed number of daemon threads (started as
 * exchanges arrive, ended after 30 s idle), and a deadline for each exchange.
 *
 * <p>The JDK server reads a request's line and headers on the thread that will answer it, with a
 * blocking read that has no timeout: a client that opens a connection and stops sending would hold
 * that thread for as long as it keeps the connection open, and enough such clients would hold them
 * all. So each exchange (reading the request, answering it) gets {@code deadline}; a thread still
 * in it then is interrupted, which closes the connection it is reading from or writing to (a socket
 * channel closes when a thread blocked on it is interrupted) and frees the thread. Between requests
 * a kept-alive connection holds no thread: the server's selector watches it.
 *
 * <p>Each exchange gets a thread of its own while fewer than the limit are busy, so clients that
 * stall hold only their own threads and never delay the others; only beyond the limit do exchanges
 * wait in a queue, each busy thread being free again within the deadline.
 */
final class ExchangeThreads implements Executor {
    private final ThreadPoolExecutor pool;
    private final ScheduledThreadPoolExecutor watchdog;
    private final long deadlineNanos;

    ExchangeThreads(String name, int threads, Duration deadline) {
        this.deadlineNanos = deadline.toNanos();
        this.pool =
                new ThreadPoolExecutor(
                        threads,
                        threads,
                        30,
                        TimeUnit.SECONDS,
                        new LinkedBlockingQueue<>(),
                        daemons(name));
        // A thread per exchange up to the limit, so stalled clients do not delay others (each
        // holds its own thread, for the deadline at most); idle ones end after 30 s.
        this.pool.allowCoreThreadTimeOut(true);
        this.watchdog = new ScheduledThreadPoolExecutor(1, daemons(name + "-watchdog"));
        this.watchdog.setRemoveOnCancelPolicy(true);
    }

    private static ThreadFactory daemons(String name) {
        AtomicInteger count = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, name + "-" + count.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    @Override
    public void execute(Runnable exchange) {
        pool.execute(() -> runWithDeadline(exchange));
    }

    private void runWithDeadline(Runnable exchange) {
        Deadline deadline = new Deadline(Thread.currentThread());
        ScheduledFuture<?> timer =
                watchdog.schedule(deadline::expire, deadlineNanos, TimeUnit.NANOSECONDS);
        try {
            exchange.run();
        } finally {
            timer.cancel(false);
            deadline.finish();
        }
    }

    /** Stops the threads; an exchange in progress is cut off. */
    void shutdownNow() {
        watchdog.shutdownNow();
        pool.shutdownNow();
    }

    /** One exchange's thread, interrupted at the deadline unless the exchange has finished. */
    private static final class Deadline {
        private final Thread thread;
        private boolean finished;

        Deadline(Thread thread) {
            this.thread = thread;
        }

        synchronized void expire() {
            if (!finished) {
                thread.interrupt();
            }
        }

        /** After this no interrupt comes, and one that came is cleared before the next exchange. */
        synchronized void finish() {
            finished = true;
            Thread.interrupted();
        }
    }
}
