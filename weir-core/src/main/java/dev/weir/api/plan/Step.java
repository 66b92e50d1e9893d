package dev.weir.api.plan;

import dev.weir.api.OutputTag;
import dev.weir.api.function.FilterFunction;
import dev.weir.api.function.FlatMapFunction;
import dev.weir.api.function.FunctionFactory;
import dev.weir.api.function.KeySelector;
import dev.weir.api.function.KeyedProcessFunction;
import dev.weir.api.function.MapFunction;
import dev.weir.api.sink.Sink;
import dev.weir.api.source.Source;
import dev.weir.api.time.WatermarkStrategy;
import java.util.List;

/**
 * One step of a pipeline as the user built it: what a {@link Runner} translates into tasks (Weir's
 * own runtime) or into another engine's job (Apache Flink). Immutable; steps refer to their inputs
 * by {@link #id()}, and every input precedes its consumers in {@link PipelinePlan#steps()}.
 *
 * <p>{@link #parallelism()} is the step's own setting, 0 meaning the pipeline's default. A step
 * marked {@link #blocking()} may block its thread (a remote call, a throttle): runners must not run
 * it on a thread that other steps share.
 */
public sealed interface Step {
    /**
     * The step's position in the plan, from 0.
     *
     * @return the id; every input's id is smaller
     */
    int id();

    /**
     * The step's unique name (it identifies its state in checkpoints).
     *
     * @return the name, unique in the pipeline
     */
    String name();

    /**
     * The step's parallelism, or 0 for the pipeline's default.
     *
     * @return at least 1, or 0
     */
    int parallelism();

    /**
     * The ids of the steps this one reads.
     *
     * @return the input ids; empty for a source
     */
    List<Integer> inputs();

    /**
     * True if the step may block its thread.
     *
     * @return true if runners must give the step threads of its own
     */
    default boolean blocking() {
        return false;
    }

    /**
     * Reads a {@link Source}; with {@code watermarks} (null for none) it gives records event time
     * per split.
     */
    record SourceStep(
            int id, String name, int parallelism, Source<?> source, WatermarkStrategy<?> watermarks)
            implements Step {
        /**
         * A source that assigns no event time.
         *
         * @param id the step's position in the plan
         * @param name the step's unique name
         * @param parallelism the step's parallelism, or 0 for the pipeline's default
         * @param source the source to read
         */
        public SourceStep(int id, String name, int parallelism, Source<?> source) {
            this(id, name, parallelism, source, null);
        }

        @Override
        public List<Integer> inputs() {
            return List.of();
        }
    }

    /** Applies a {@link MapFunction} to each record. */
    record MapStep(
            int id,
            String name,
            int parallelism,
            int input,
            MapFunction<?, ?> function,
            boolean blocking)
            implements Step {
        @Override
        public List<Integer> inputs() {
            return List.of(input);
        }
    }

    /** Keeps the records a {@link FilterFunction} accepts. */
    record FilterStep(
            int id,
            String name,
            int parallelism,
            int input,
            FilterFunction<?> function,
            boolean blocking)
            implements Step {
        @Override
        public List<Integer> inputs() {
            return List.of(input);
        }
    }

    /** Replaces each record by what a {@link FlatMapFunction} emits. */
    record FlatMapStep(
            int id,
            String name,
            int parallelism,
            int input,
            FlatMapFunction<?, ?> function,
            boolean blocking)
            implements Step {
        @Override
        public List<Integer> inputs() {
            return List.of(input);
        }
    }

    /** Gives records event time and makes watermarks. */
    record TimestampsStep(
            int id, String name, int parallelism, int input, WatermarkStrategy<?> strategy)
            implements Step {
        @Override
        public List<Integer> inputs() {
            return List.of(input);
        }
    }

    /**
     * Partitions its input by {@code keySelector} and runs a {@link KeyedProcessFunction} (one made
     * by {@code factory} per subtask) with keyed state.
     */
    record KeyedProcessStep(
            int id,
            String name,
            int parallelism,
            int input,
            KeySelector<?, ?> keySelector,
            FunctionFactory<? extends KeyedProcessFunction<?, ?, ?>> factory,
            boolean blocking)
            implements Step {
        @Override
        public List<Integer> inputs() {
            return List.of(input);
        }
    }

    /** Writes its input to a {@link Sink}. */
    record SinkStep(int id, String name, int parallelism, int input, Sink<?> sink) implements Step {
        @Override
        public List<Integer> inputs() {
            return List.of(input);
        }

        @Override
        public boolean blocking() {
            return sink.isBlocking();
        }
    }

    /** Merges several inputs of one type; has no parallelism of its own. */
    record UnionStep(int id, String name, List<Integer> inputs) implements Step {
        /**
         * Copies the inputs.
         *
         * @param id the step's position in the plan
         * @param name the step's unique name
         * @param inputs the ids of the merged steps; copied
         */
        public UnionStep {
            inputs = List.copyOf(inputs);
        }

        @Override
        public int parallelism() {
            return 0;
        }
    }

    /** The side output {@code tag} of its input step; has no parallelism of its own. */
    record SideOutputStep(int id, String name, int input, OutputTag<?> tag) implements Step {
        @Override
        public int parallelism() {
            return 0;
        }

        @Override
        public List<Integer> inputs() {
            return List.of(input);
        }
    }
}
