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

    /** Feeds {@code operator}, whose own output is {@code operatorOutput}. */
    public ChainedOutput(StreamOperator operator, Output operatorOutput) {
        this.operator = operator;
        this.operatorOutput = operatorOutput;
    }

    @Override
    public void collect(Object record) {
        operator.processElement(record);
    }

    @Override
    public void emitWatermark(long watermark) {
        if (operator.processWatermark(watermark)) {
            operatorOutput.emitWatermark(watermark);
        }
    }

    /** The operator this output feeds. */
    public StreamOperator operator() {
        return operator;
    }
}
