package dev.weir.internal.operators;

import dev.weir.api.function.MapFunction;

/** Applies a {@link MapFunction} to each record. */
public final class MapOperator implements StreamOperator {
    private final MapFunction<Object, Object> function;
    private String name;
    private Output output;

    public MapOperator(MapFunction<Object, Object> function) {
        this.function = function;
    }

    @Override
    public void open(OperatorContext context) {
        this.name = context.operatorName();
        this.output = context.output();
    }

    @Override
    public void processElement(Object record) {
        Object result;
        try {
            result = function.map(record);
        } catch (Exception e) {
            throw new UserCodeException("map '" + name + "'", e);
        }
        if (result == null) {
            throw NullCheckingOutput.nullRecord(
                    "map '" + name + "'", "returned null for " + record);
        }
        output.collect(result);
    }
}
