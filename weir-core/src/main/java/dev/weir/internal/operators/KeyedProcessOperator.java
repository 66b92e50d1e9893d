package dev.weir.internal.operators;

import dev.weir.api.function.Collector;
import dev.weir.api.function.FunctionFactory;
import dev.weir.api.function.KeySelector;
import dev.weir.api.function.KeyedProcessFunction;
import dev.weir.internal.runtime.KeyedInput;
import dev.weir.internal.runtime.NullCheckingOutput;
import dev.weir.internal.runtime.OperatorContext;
import dev.weir.internal.runtime.StreamOperator;
import dev.weir.internal.runtime.UserCodeException;
import dev.weir.internal.state.HeapKeyedStateBackend;

/**
 * Runs a {@link KeyedProcessFunction}: takes each record's key (from the keyed batch, or extracts
 * it), scopes the keyed state to it and calls the function.
 */
public final class KeyedProcessOperator implements StreamOperator, KeyedInput {
    private final KeySelector<Object, Object> keySelector;
    private final FunctionFactory<KeyedProcessFunction<Object, Object, Object>> factory;
    private KeyedProcessFunction<Object, Object, Object> function;
    private String name;
    private Collector<Object> output;
    private HeapKeyedStateBackend state;

    public KeyedProcessOperator(
            KeySelector<Object, Object> keySelector,
            FunctionFactory<KeyedProcessFunction<Object, Object, Object>> factory) {
        this.keySelector = keySelector;
        this.factory = factory;
    }

    @Override
    public void open(OperatorContext context) throws Exception {
        this.name = context.operatorName();
        this.output = new NullCheckingOutput("process '" + name + "'", context.output());
        this.state = context.keyedState();
        this.function = factory.create();
        function.open(state);
    }

    @Override
    public void processElement(Object record) {
        Object key;
        try {
            key = keySelector.getKey(record);
        } catch (Exception e) {
            throw new UserCodeException("process '" + name + "'", e);
        }
        processElement(record, key);
    }

    /** With the key the keyed edge's writer extracted with this operator's own key selector. */
    @Override
    public void processElement(Object record, Object key) {
        try {
            state.setCurrentKey(key);
            function.process(key, record, output);
        } catch (UserCodeException e) {
            throw e;
        } catch (Exception e) {
            throw new UserCodeException("process '" + name + "'", e);
        }
    }
}
