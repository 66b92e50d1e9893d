package dev.weir.internal.graph;

import dev.weir.api.function.KeySelector;
import dev.weir.api.sink.Sink;
import dev.weir.api.source.Source;
import dev.weir.api.time.WatermarkStrategy;
import dev.weir.internal.operators.OperatorFactory;
import java.util.List;

/**
 * One step of the logical pipeline the user builds; the planner turns these into tasks.
 *
 * <p>Immutable once created, except {@link #parallelism} which the stream API sets right after.
 */
public abstract sealed class Node
        permits Node.SourceNode, Node.OperatorNode, Node.UnionNode, Node.SideOutputNode {
    /** How records travel from an input into a node. */
    public enum Partitioning {
        /** Keep the upstream subtask's records together; chained when parallelism matches. */
        FORWARD,
        /** Route each record to the subtask owning its key's key group. */
        KEYED,
        /** Spread records round-robin over the downstream subtasks. */
        REBALANCE
    }

    private final int id;
    private String name;
    private int parallelism;

    Node(int id, String name) {
        this.id = id;
        this.name = name;
    }

    public int id() {
        return id;
    }

    public String name() {
        return name;
    }

    public void name(String name) {
        this.name = name;
    }

    /** The parallelism set for this node, or 0 for the pipeline default. */
    public int parallelism() {
        return parallelism;
    }

    public void parallelism(int parallelism) {
        this.parallelism = parallelism;
    }

    /** A source: reads splits, has no inputs. */
    public static final class SourceNode extends Node {
        private final Source<?> source;
        private final WatermarkStrategy<?> watermarks;

        public SourceNode(int id, String name, Source<?> source) {
            this(id, name, source, null);
        }

        /** A source that assigns event time per split with {@code watermarks} (null for none). */
        public SourceNode(int id, String name, Source<?> source, WatermarkStrategy<?> watermarks) {
            super(id, name);
            this.source = source;
            this.watermarks = watermarks;
        }

        public Source<?> source() {
            return source;
        }

        /** The source's watermark strategy, or null if it assigns no event time. */
        public WatermarkStrategy<?> watermarks() {
            return watermarks;
        }
    }

    /** An operator with one logical input (which may be a union). */
    public static final class OperatorNode extends Node {
        private final Node input;
        private final Partitioning partitioning;
        private final KeySelector<Object, Object> keySelector;
        private final OperatorFactory factory;
        private final Sink<?> sink;
        private boolean assignsTime;
        private boolean blocking;

        public OperatorNode(
                int id,
                String name,
                Node input,
                Partitioning partitioning,
                KeySelector<Object, Object> keySelector,
                OperatorFactory factory,
                Sink<?> sink) {
            super(id, name);
            this.input = input;
            this.partitioning = partitioning;
            this.keySelector = keySelector;
            this.factory = factory;
            this.sink = sink;
        }

        /** True if this step gives records event time (then the job's edges carry timestamps). */
        public boolean assignsTime() {
            return assignsTime;
        }

        /** Marks this step as one that gives records event time. */
        public OperatorNode assignsTime(boolean assigns) {
            this.assignsTime = assigns;
            return this;
        }

        /** True if this step may block its thread (it then runs on a thread of its own). */
        public boolean blocking() {
            return blocking;
        }

        /** Marks this step as one that may block its thread. */
        public OperatorNode blocking(boolean blocks) {
            this.blocking = blocks;
            return this;
        }

        public Node input() {
            return input;
        }

        public Partitioning partitioning() {
            return partitioning;
        }

        /** The key selector of a {@link Partitioning#KEYED} input, else null. */
        public KeySelector<Object, Object> keySelector() {
            return keySelector;
        }

        public OperatorFactory factory() {
            return factory;
        }

        /** The sink this operator writes to, or null if it is not a sink. */
        public Sink<?> sink() {
            return sink;
        }
    }

    /** A virtual node merging several streams of the same type; never becomes a task itself. */
    public static final class UnionNode extends Node {
        private final List<Node> inputs;

        public UnionNode(int id, String name, List<Node> inputs) {
            super(id, name);
            this.inputs = List.copyOf(inputs);
        }

        public List<Node> inputs() {
            return inputs;
        }
    }

    /**
     * A virtual node: the side output {@code tag} of {@code producer}, read by the steps that take
     * it as input. Never becomes a task itself.
     */
    public static final class SideOutputNode extends Node {
        private final Node producer;
        private final String tag;

        public SideOutputNode(int id, String name, Node producer, String tag) {
            super(id, name);
            this.producer = producer;
            this.tag = tag;
        }

        public Node producer() {
            return producer;
        }

        public String tag() {
            return tag;
        }
    }
}
