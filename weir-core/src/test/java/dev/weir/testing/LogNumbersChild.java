package dev.weir.testing;

import dev.weir.api.codec.Codecs;
import dev.weir.api.log.DurableLog;
import dev.weir.api.log.LogOptions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Appends the numbers 0, 1, 2, ... (Codecs.LONG) to topic "n" (1 partition, 64 KiB segments) in
 * batches of 500 forced to disk, printing "acked N" after each, until it is killed. Argument: log
 * directory.
 */
public final class LogNumbersChild {
    private LogNumbersChild() {}

    public static void main(String[] args) {
        try (DurableLog log =
                DurableLog.open(
                        Path.of(args[0]), LogOptions.defaults().withSegmentBytes(64 * 1024))) {
            log.createTopic("n", 1);
            long next = log.endOffset("n", 0);
            while (true) {
                List<byte[]> batch = new ArrayList<>(500);
                for (int i = 0; i < 500; i++) {
                    batch.add(Codecs.LONG.toBytes(next + i));
                }
                next = log.append("n", 0, batch) + 500;
                System.out.println("acked " + next);
                System.out.flush();
            }
        }
    }
}
