package dev.weir.bench;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.Locale;

/**
 * What a run cost the JVM beyond its wall time, the same way for both engines: bytes allocated by
 * every thread per input record, and the collectors' accumulated time. Figures that a noisy, shared
 * machine does not move much, unlike records/s.
 */
final class RunResources {
    private final long startBytes = allocatedBytes();
    private final long startGcMillis = gcMillis();

    /** {@code alloc_bytes_per_record=… gc_ms=…} for a run of {@code records} input records. */
    String fields(long records) {
        double perRecord = (allocatedBytes() - startBytes) / (double) records;
        return String.format(
                Locale.ROOT,
                " alloc_bytes_per_record=%.1f gc_ms=%d",
                perRecord,
                gcMillis() - startGcMillis);
    }

    private static long allocatedBytes() {
        if (ManagementFactory.getThreadMXBean()
                instanceof com.sun.management.ThreadMXBean threads) {
            return threads.getTotalThreadAllocatedBytes();
        }
        return 0;
    }

    private static long gcMillis() {
        long total = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            total += Math.max(0, gc.getCollectionTime());
        }
        return total;
    }
}
