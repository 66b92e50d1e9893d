package dev.weir.internal.runtime;

import dev.weir.internal.operators.Output;
import dev.weir.internal.operators.StreamOperator;

/**
 * Feeds a chained operator: records go to {@link StreamOperator#processElement}, watermarks to
 * {@link StreamOperator#processWatermark}, which the operator passes on to its own output unless it
 * says otherwise.
 */
public final class ChainedOutput implements Output {
    private final StreamOperator operator;
    private final Output operatorOutput;

    /**
     * Records into the operator (metrics). The one engine write per chained record: a primitive
     * field of an object the call reads anyway, so no barrier, allocation or extra call (rule 1 of
     * docs/design/009-hot-path.md forbids reference stores, not this).
     */
    private long records;

    /** Feeds {@code operator}, whose own output is {@code operatorOutput}. */
    public ChainedOutput(StreamOperator operator, Output operatorOutput) {
        this.operator = operator;
        this.operatorOutput = operatorOutput;
    }

    @Override
    public void collect(Object record) {
        records++;
        operator.processElement(record);
    }

    @Override
    public void emitWatermark(long watermark) {
        if (operator.processWatermark(watermark)) {
            operatorOutput.emitWatermark(watermark);
        }
    }

    /** Records passed to the operator so far; read racily by metrics on any thread. */
    public long records() {
        return records;
    }

    /** The operator this output feeds. */
    public StreamOperator operator() {
        return operator;
    }
}
