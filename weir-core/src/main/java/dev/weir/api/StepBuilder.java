package dev.weir.api;

import dev.weir.api.function.FilterFunction;
import dev.weir.api.function.FlatMapFunction;
import dev.weir.api.function.FunctionFactory;
import dev.weir.api.function.KeySelector;
import dev.weir.api.function.KeyedProcessFunction;
import dev.weir.api.function.MapFunction;
import dev.weir.api.plan.Step;
import dev.weir.api.sink.Sink;
import dev.weir.api.source.Source;
import dev.weir.api.time.WatermarkStrategy;
import java.util.List;

/**
 * A step while the pipeline is being built: its name and parallelism can still change ({@link
 * DataStream#name}, {@link DataStream#parallelism}, {@link DataStream#blocking}); {@link #build}
 * freezes it into a {@link Step}.
 */
final class StepBuilder {
    /** What the step does. */
    enum Kind {
        SOURCE,
        MAP,
        FILTER,
        FLAT_MAP,
        TIMESTAMPS,
        KEYED_PROCESS,
        SINK,
        UNION,
        SIDE_OUTPUT
    }

    final int id;
    final Kind kind;
    final List<StepBuilder> inputs;
    final Object payload;
    final KeySelector<?, ?> keySelector;
    final OutputTag<?> tag;
    String name;
    int parallelism;
    boolean blocking;

    /** A source's watermark strategy, or null. */
    WatermarkStrategy<?> watermarks;

    StepBuilder(
            int id,
            String name,
            Kind kind,
            List<StepBuilder> inputs,
            Object payload,
            KeySelector<?, ?> keySelector,
            OutputTag<?> tag) {
        this.id = id;
        this.name = name;
        this.kind = kind;
        this.inputs = List.copyOf(inputs);
        this.payload = payload;
        this.keySelector = keySelector;
        this.tag = tag;
    }

    /** True for unions and side outputs, which have no tasks or parallelism of their own. */
    boolean isVirtual() {
        return kind == Kind.UNION || kind == Kind.SIDE_OUTPUT;
    }

    /** The parallelism a forward step after this one starts with. */
    int parallelismForNext() {
        return kind == Kind.SIDE_OUTPUT ? inputs.get(0).parallelismForNext() : parallelism;
    }

    private int input() {
        return inputs.get(0).id;
    }

    @SuppressWarnings("unchecked")
    Step build() {
        return switch (kind) {
            case SOURCE ->
                    new Step.SourceStep(id, name, parallelism, (Source<?>) payload, watermarks);
            case MAP ->
                    new Step.MapStep(
                            id, name, parallelism, input(), (MapFunction<?, ?>) payload, blocking);
            case FILTER ->
                    new Step.FilterStep(
                            id, name, parallelism, input(), (FilterFunction<?>) payload, blocking);
            case FLAT_MAP ->
                    new Step.FlatMapStep(
                            id,
                            name,
                            parallelism,
                            input(),
                            (FlatMapFunction<?, ?>) payload,
                            blocking);
            case TIMESTAMPS ->
                    new Step.TimestampsStep(
                            id, name, parallelism, input(), (WatermarkStrategy<?>) payload);
            case KEYED_PROCESS ->
                    new Step.KeyedProcessStep(
                            id,
                            name,
                            parallelism,
                            input(),
                            keySelector,
                            (FunctionFactory<? extends KeyedProcessFunction<?, ?, ?>>) payload,
                            blocking);
            case SINK -> new Step.SinkStep(id, name, parallelism, input(), (Sink<?>) payload);
            case UNION -> new Step.UnionStep(id, name, inputs.stream().map(b -> b.id).toList());
            case SIDE_OUTPUT -> new Step.SideOutputStep(id, name, input(), tag);
        };
    }
}
