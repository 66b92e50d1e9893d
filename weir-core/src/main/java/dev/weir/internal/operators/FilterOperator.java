package dev.weir.internal.operators;

import dev.weir.api.function.FilterFunction;

/** Forwards the records a {@link FilterFunction} keeps. */
public final class FilterOperator implements StreamOperator {
    private final FilterFunction<Object> function;
    private String name;
    private Output output;

    public FilterOperator(FilterFunction<Object> function) {
        this.function = function;
    }

    @Override
    public void open(OperatorContext context) {
        this.name = context.operatorName();
        this.output = context.output();
    }

    @Override
    public void processElement(Object record) {
        boolean keep;
        try {
            keep = function.test(record);
        } catch (Exception e) {
            throw new UserCodeException("filter '" + name + "'", e);
        }
        if (keep) {
            output.collect(record);
        }
    }
}
