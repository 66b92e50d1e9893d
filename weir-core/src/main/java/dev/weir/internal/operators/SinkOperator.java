package dev.weir.internal.operators;

import dev.weir.api.sink.Sink;
import dev.weir.api.sink.SinkWriter;

/** Hands records to a {@link SinkWriter}. */
public final class SinkOperator implements StreamOperator {
    private final Sink<Object> sink;
    private String name;
    private SinkWriter<Object> writer;

    public SinkOperator(Sink<Object> sink) {
        this.sink = sink;
    }

    @Override
    public void open(OperatorContext context) throws Exception {
        this.name = context.operatorName();
        this.writer = sink.createWriter(SubtaskSinkContext.of(context));
    }

    @Override
    public void processElement(Object record) {
        try {
            writer.write(record);
        } catch (Exception e) {
            throw new UserCodeException("sink '" + name + "'", e);
        }
    }

    @Override
    public void finish() throws Exception {
        writer.finish();
    }

    @Override
    public void close() throws Exception {
        if (writer != null) {
            writer.close();
        }
    }
}
