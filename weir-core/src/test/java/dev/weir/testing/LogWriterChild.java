package dev.weir.testing;

import dev.weir.api.log.DurableLog;
import dev.weir.api.log.LogOptions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Appends batches of deterministic records to a log forever, printing "acked N" after each durable
 * batch (fsync per batch), until it is killed. Arguments: log directory, batch size.
 */
public final class LogWriterChild {
    private LogWriterChild() {}

    /** The payload of record {@code offset}: its length and bytes follow from the offset. */
    public static byte[] payload(long offset) {
        byte[] bytes = new byte[(int) (20 + offset % 180)];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) (offset * 17 + i);
        }
        return bytes;
    }

    public static void main(String[] args) {
        int batch = Integer.parseInt(args[1]);
        try (DurableLog log =
                DurableLog.open(
                        Path.of(args[0]), LogOptions.defaults().withSegmentBytes(256 * 1024))) {
            log.createTopic("t", 1);
            long next = log.endOffset("t", 0);
            while (true) {
                List<byte[]> records = new ArrayList<>(batch);
                for (int i = 0; i < batch; i++) {
                    records.add(payload(next + i));
                }
                next = log.append("t", 0, records) + batch;
                System.out.println("acked " + next);
                System.out.flush();
            }
        }
    }
}
