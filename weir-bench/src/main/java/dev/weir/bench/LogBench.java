package dev.weir.bench;

import dev.weir.api.log.DurableLog;
import dev.weir.api.log.LogOptions;
import dev.weir.internal.io.DurableFiles;
import dev.weir.internal.log.PartitionLog;
import dev.weir.internal.log.PartitionLogs;
import dev.weir.internal.log.PartitionReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Appends N records of B bytes to one partition of the embedded log in batches, forcing each batch
 * to disk, then reads them all back sequentially (CRC32C checked). Prints one line per phase.
 */
@Command(name = "log", description = "Append and sequential-read throughput of the durable log.")
public final class LogBench implements Callable<Integer> {
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

            PartitionLog partition = log.partition("bench", 0);
            PartitionReader reader = PartitionLogs.reader(partition, 0);
            long[] checksum = new long[1];
            start = System.nanoTime();
            long read = 0;
            while (reader.hasNext()) {
                read +=
                        reader.read(
                                (offset, a, t, buffer, at, length) -> checksum[0] += length, 4096);
            }
            double readSeconds = (System.nanoTime() - start) / 1e9;
            if (read != n - n % batch + (n % batch == 0 ? 0 : batch) && read < n) {
                throw new IllegalStateException("read " + read + " of " + n);
            }
            print("read", readSeconds);
        } finally {
            DurableFiles.deleteRecursively(dir);
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
}
