package dev.weir.internal.log;

import dev.weir.api.log.RecordScanner;
import java.util.Arrays;

/**
 * Hands the committed records a {@link PartitionReader} reads to a {@link RecordScanner}, up to a
 * limit: plain records at once, straight from the reader's buffer; a transaction's records once its
 * COMMIT arrives, from a copy kept until then. Markers are never handed on.
 *
 * <p>A transaction is open from its BEGIN — or from its first record, when the scan starts inside
 * it — and abandoned by anything but its own records and COMMIT (only a crash leaves one). This is
 * Kafka's {@code read_committed}; docs/design/004-durable-log.md, invariant 7. Single-threaded: one
 * per scan.
 */
final class CommittedScan implements RecordVisitor {
    private static final long NONE = Long.MIN_VALUE;

    private final RecordScanner scanner;
    private final int max;
    private int delivered;
    private long next;

    /** The open transaction, or {@link #NONE}, and its records' offsets, ends and payloads. */
    private long openTransaction = NONE;

    private int openCount;
    private long[] openOffsets = new long[16];
    private int[] openEnds = new int[16];
    private byte[] openBytes = new byte[4096];

    /**
     * @param scanner receives the committed records
     * @param max the most records to hand on
     * @param from where the scan starts, which {@link #next()} returns until a record is handed on
     */
    CommittedScan(RecordScanner scanner, int max, long from) {
        this.scanner = scanner;
        this.max = max;
        this.next = from;
    }

    /** True once {@code max} records were handed on. */
    boolean full() {
        return delivered >= max;
    }

    /** How many records were handed on. */
    int delivered() {
        return delivered;
    }

    /** One past the last record handed on; where the scan started if none was. */
    long next() {
        return next;
    }

    @Override
    public void accept(
            long offset, byte attributes, long transaction, byte[] buffer, int at, int length) {
        if (full()) {
            return; // the rest of the reader's chunk: a later scan starts at next()
        }
        switch (attributes) {
            case PartitionLog.DATA -> {
                abandon();
                deliver(offset, buffer, at, length);
            }
            case PartitionLog.TXN_BEGIN -> {
                abandon();
                openTransaction = transaction;
            }
            case PartitionLog.TXN_DATA -> {
                if (openTransaction != transaction) {
                    abandon();
                    openTransaction = transaction; // the scan started inside it
                }
                keep(offset, buffer, at, length);
            }
            case PartitionLog.TXN_COMMIT -> {
                if (openTransaction == transaction) {
                    for (int i = 0; i < openCount && !full(); i++) {
                        int start = i == 0 ? 0 : openEnds[i - 1];
                        deliver(openOffsets[i], openBytes, start, openEnds[i] - start);
                    }
                }
                abandon();
            }
            default -> LogDirectory.kind(offset, attributes); // throws: unknown attributes
        }
    }

    private void deliver(long offset, byte[] buffer, int at, int length) {
        scanner.record(offset, buffer, at, length);
        delivered++;
        next = offset + 1;
    }

    /** Copies a record of the open transaction (its bytes are reused after this call). */
    private void keep(long offset, byte[] buffer, int at, int length) {
        if (openCount == openOffsets.length) {
            openOffsets = Arrays.copyOf(openOffsets, openCount * 2);
            openEnds = Arrays.copyOf(openEnds, openCount * 2);
        }
        int start = openCount == 0 ? 0 : openEnds[openCount - 1];
        if (openBytes.length - start < length) {
            // A transaction is one append, and an append is below 2 GiB (PartitionLog).
            long wanted = Math.max((long) openBytes.length * 2, (long) start + length);
            openBytes = Arrays.copyOf(openBytes, (int) Math.min(wanted, Integer.MAX_VALUE - 8));
        }
        System.arraycopy(buffer, at, openBytes, start, length);
        openOffsets[openCount] = offset;
        openEnds[openCount] = start + length;
        openCount++;
    }

    private void abandon() {
        openCount = 0;
        openTransaction = NONE;
    }
}
