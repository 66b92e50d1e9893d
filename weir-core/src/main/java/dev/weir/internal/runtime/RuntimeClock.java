package dev.weir.internal.runtime;

/**
 * The clocks a job reads: monotonic nanoseconds (timing, source pacing) and wall-clock milliseconds
 * (processing time: timers, periodic watermarks). Injected through {@link JobSettings} so tests and
 * simulations drive time instead of waiting for it.
 */
public interface RuntimeClock {
    /** Monotonic time in nanoseconds. */
    long nanoTime();

    /** Wall-clock time in milliseconds since the epoch. */
    long millis();

    /** The system's clocks. */
    RuntimeClock SYSTEM =
            new RuntimeClock() {
                @Override
                public long nanoTime() {
                    return System.nanoTime();
                }

                @Override
                public long millis() {
                    return System.currentTimeMillis();
                }
            };

    /**
     * The system's monotonic clock with {@code processingTime} as the wall clock; the system's
     * clocks if it is null.
     */
    static RuntimeClock processingTime(java.time.InstantSource processingTime) {
        if (processingTime == null) {
            return SYSTEM;
        }
        return new RuntimeClock() {
            @Override
            public long nanoTime() {
                return System.nanoTime();
            }

            @Override
            public long millis() {
                return processingTime.millis();
            }
        };
    }
}
