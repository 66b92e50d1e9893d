package dev.weir.internal.runtime;

import dev.weir.internal.operators.Output;

/** Sends each record to several outputs: chained operators and network writers. */
final class FanOut implements Output {
    private final Output[] outputs;

    FanOut(Output[] outputs) {
        this.outputs = outputs.clone();
    }

    /** The first of the outputs (each sees every record). */
    Output first() {
        return outputs[0];
    }

    @Override
    public void collect(Object record) {
        for (Output output : outputs) {
            output.collect(record);
        }
    }

    @Override
    public void emitWatermark(long watermark) {
        for (Output output : outputs) {
            output.emitWatermark(watermark);
        }
    }
}
