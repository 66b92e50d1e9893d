package dev.weir.internal.testhooks;

import dev.weir.api.testing.FaultPoint;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Named places where a crash can be injected to test recovery.
 *
 * <p>Armed only by the system property {@code weir.fault=<name>:<k>}: the k-th time the named point
 * is reached, the JVM kills itself with SIGKILL (falling back to {@link Runtime#halt}), so nothing
 * after that point runs, no buffers are flushed and no shutdown hook runs. Disarmed, {@link #reach}
 * is a test of a static final field, which the JIT removes.
 */
public final class FaultPoints {
    private static final String ARMED_NAME;
    private static final long ARMED_COUNT;
    private static final boolean ARMED;
    private static final AtomicLong HITS = new AtomicLong();
    private static volatile java.util.Map<String, long[]> throwAt = java.util.Map.of();

    static {
        String spec = System.getProperty("weir.fault", "");
        int colon = spec.lastIndexOf(':');
        if (spec.isEmpty()) {
            ARMED_NAME = "";
            ARMED_COUNT = 0;
        } else if (colon < 0) {
            ARMED_NAME = spec;
            ARMED_COUNT = 1;
        } else {
            ARMED_NAME = spec.substring(0, colon);
            ARMED_COUNT = Long.parseLong(spec.substring(colon + 1));
        }
        ARMED = !ARMED_NAME.isEmpty();
    }

    private FaultPoints() {}

    /** Marks that execution reached {@code point}; kills the JVM (or throws) if it is armed. */
    public static void reach(FaultPoint point) {
        if (ARMED || !throwAt.isEmpty()) {
            reach(point.id());
        }
    }

    /** For in-process tests: see {@link #throwAt(String, long)}. */
    public static void throwAt(FaultPoint point, long count) {
        throwAt(point.id(), count);
    }

    private static void reach(String name) {
        if (ARMED && ARMED_NAME.equals(name) && HITS.incrementAndGet() == ARMED_COUNT) {
            killSelf(name);
        }
        java.util.Map<String, long[]> inProcess = throwAt;
        if (!inProcess.isEmpty()) {
            long[] target = inProcess.get(name);
            if (target != null) {
                boolean fire;
                synchronized (target) {
                    fire = ++target[1] == target[0];
                }
                if (fire) {
                    throw new InjectedFault(name);
                }
            }
        }
    }

    /**
     * For in-process tests: the {@code count}-th time {@code name} is reached from now on, throw
     * {@link InjectedFault} there (a task failure) instead of killing the JVM.
     */
    public static void throwAt(String name, long count) {
        java.util.Map<String, long[]> next = new java.util.HashMap<>(throwAt);
        next.put(name, new long[] {count, 0});
        throwAt = java.util.Map.copyOf(next);
    }

    /** How often {@code name} was reached since its {@link #throwAt} (0 if not armed). */
    public static long hits(String name) {
        long[] target = throwAt.get(name);
        if (target == null) {
            return 0;
        }
        synchronized (target) {
            return target[1];
        }
    }

    /** Disarms every {@link #throwAt}. */
    public static void disarm() {
        throwAt = java.util.Map.of();
    }

    /** The failure {@link #throwAt} injects. */
    public static final class InjectedFault extends RuntimeException {
        public InjectedFault(String point) {
            super("injected fault at " + point);
        }
    }

    private static void killSelf(String name) {
        System.err.println("weir: fault point '" + name + "' reached; killing this JVM (SIGKILL)");
        System.err.flush();
        long pid = ProcessHandle.current().pid();
        try {
            new ProcessBuilder("kill", "-KILL", Long.toString(pid)).start().waitFor();
            Thread.sleep(5_000);
        } catch (Exception e) {
            // fall through to halt
        }
        Runtime.getRuntime().halt(137);
    }
}
