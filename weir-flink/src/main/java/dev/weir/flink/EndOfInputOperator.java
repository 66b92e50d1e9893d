package dev.weir.flink;

import dev.weir.api.OutputTag;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * Flink's keyed process operator plus Weir's {@code onEndOfInput}: when its input has ended (after
 * the final watermark fired every event-time timer, as on Weir's runtime) it calls the function's
 * {@code onEndOfInput}, whose {@code forEachKey} visits every key that has state with the state
 * scoped to it. Used only for functions that override {@code onEndOfInput}.
 */
final class EndOfInputOperator extends KeyedProcessOperator<WeirKey, Object, Object>
        implements BoundedOneInput {
    private static final long serialVersionUID = 1L;

    EndOfInputOperator(FlinkProcessFunction function) {
        super(function);
    }

    @Override
    public void endInput() throws Exception {
        ((FlinkProcessFunction) getUserFunction()).endOfInput(this);
    }

    /** Emits {@code value} downstream, without a timestamp. */
    void emit(Object value) {
        output.collect(new StreamRecord<>(value));
    }

    /** Emits {@code value} into the side output {@code tag}. */
    <X> void emit(OutputTag<X> tag, X value) {
        output.collect(Translator.flinkTag(tag), new StreamRecord<>(value));
    }
}
