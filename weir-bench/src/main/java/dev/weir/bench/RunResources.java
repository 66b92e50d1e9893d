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
    private final long startCpuNanos = cpuNanos();

    /**
     * {@code alloc_bytes_per_record=… gc_ms=… cpu_ns_per_record=…} for a run of {@code records}
     * input records. The CPU time is the whole process's (every thread, the collectors and the JIT
     * too): the work a record costs, which other load on the machine moves far less than records/s.
     */
    String fields(long records) {
        double perRecord = (allocatedBytes() - startBytes) / (double) records;
        long cpu = cpuNanos();
        return String.format(
                Locale.ROOT,
                " alloc_bytes_per_record=%.1f gc_ms=%d cpu_ns_per_record=%.1f",
                perRecord,
                gcMillis() - startGcMillis,
                cpu < 0 || startCpuNanos < 0 ? -1.0 : (cpu - startCpuNanos) / (double) records);
    }

    private static long cpuNanos() {
        if (ManagementFactory.getOperatingSystemMXBean()
                instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getProcessCpuTime();
        }
        return -1;
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
