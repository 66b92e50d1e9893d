package dev.weir.internal.operators;

import dev.weir.api.function.Collector;
import dev.weir.api.function.FlatMapFunction;

/** Applies a {@link FlatMapFunction} to each record. */
public final class FlatMapOperator implements StreamOperator {
    private final FlatMapFunction<Object, Object> function;
    private String name;
    private Collector<Object> output;

    public FlatMapOperator(FlatMapFunction<Object, Object> function) {
        this.function = function;
    }

    @Override
    public void open(OperatorContext context) {
        this.name = context.operatorName();
        this.output = new NullCheckingOutput("flatMap '" + name + "'", context.output());
    }

    @Override
    public void processElement(Object record) {
        try {
            function.flatMap(record, output);
        } catch (UserCodeException e) {
            throw e;
        } catch (Exception e) {
            throw new UserCodeException("flatMap '" + name + "'", e);
        }
    }
}
