package dev.weir.bench;

import dev.weir.api.log.DurableLog;
import dev.weir.api.log.LogOptions;
import dev.weir.api.log.RecordScanner;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Appends N records of B bytes to one partition of the embedded log in batches, forcing each batch
 * to disk, then reads them all back sequentially (CRC32C checked) through {@link DurableLog#scan},
 * which hands each payload over without copying it. Prints one line per phase.
 */
@Command(name = "log", description = "Append and sequential-read throughput of the durable log.")
public final class LogBench implements Callable<Integer> {
    /** Records per {@link DurableLog#scan} call. */
    private static final int SCAN_RECORDS = 1 << 16;

    @Option(names = "--n", description = "Records (default ${DEFAULT-VALUE}).")
    long n = 5_000_000;

    @Option(names = "--bytes", description = "Payload bytes per record (default ${DEFAULT-VALUE}).")
    int bytes = 100;

    @Option(
            names = "--batch",
            description = "Records per fsynced batch (default ${DEFAULT-VALUE}).")
    int batch = 1000;

    @Override
    public Integer call() throws Exception {
        Path dir = Files.createTempDirectory("weir-log-bench-");
        try (DurableLog log = DurableLog.open(dir, LogOptions.defaults())) {
            log.createTopic("bench", 1);
            List<byte[]> records = new ArrayList<>(batch);
            for (int i = 0; i < batch; i++) {
                records.add(new byte[bytes]);
            }
            long start = System.nanoTime();
            for (long written = 0; written < n; written += batch) {
                log.append("bench", 0, records);
            }
            double appendSeconds = (System.nanoTime() - start) / 1e9;
            print("append", appendSeconds);

            long[] seen = new long[2]; // records, payload bytes
            RecordScanner scanner =
                    (offset, buffer, at, length) -> {
                        seen[0]++;
                        seen[1] += length;
                    };
            start = System.nanoTime();
            long next = 0;
            for (long after; (after = log.scan("bench", 0, next, SCAN_RECORDS, scanner)) > next; ) {
                next = after;
            }
            long read = seen[0];
            double readSeconds = (System.nanoTime() - start) / 1e9;
            if (read != n - n % batch + (n % batch == 0 ? 0 : batch) && read < n) {
                throw new IllegalStateException("read " + read + " of " + n);
            }
            print("read", readSeconds);
        } finally {
            deleteRecursively(dir);
        }
        return 0;
    }

    private void print(String phase, double seconds) {
        System.out.printf(
                Locale.ROOT,
                "engine=weir job=log-%s N=%d bytes=%d batch=%d fsync=every-batch seconds=%.3f records_per_s=%.0f%n",
                phase,
                n,
                bytes,
                batch,
                seconds,
                n / seconds);
    }

    private static void deleteRecursively(Path path) throws IOException {
        if (!Files.exists(path)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(path)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
