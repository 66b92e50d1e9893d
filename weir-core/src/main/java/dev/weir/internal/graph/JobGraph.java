package dev.weir.internal.graph;

import dev.weir.api.function.KeySelector;
import dev.weir.internal.graph.Node.OperatorNode;
import dev.weir.internal.graph.Node.Partitioning;
import dev.weir.internal.graph.Node.SideOutputNode;
import dev.weir.internal.graph.Node.SourceNode;
import dev.weir.internal.graph.Node.UnionNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The physical plan: vertices of chained operators connected by partitioned edges.
 *
 * <p>An operator is chained into its input's vertex (called directly, no channel) when it has a
 * single input, the edge is forward, and both run at the same parallelism. Unions disappear: their
 * consumer simply gets several input edges. So do side outputs: their consumers are chained to (or
 * get an edge from) the producing operator, marked with the side output's tag.
 */
public final class JobGraph {
    /** One operator inside a vertex, with the operators chained after it and its network edges. */
    public static final class ChainNode {
        private final Node node;
        private final List<ChainNode> chained = new ArrayList<>();
        private final List<Edge> outputs = new ArrayList<>();
        private String inputTag;

        ChainNode(Node node) {
            this.node = node;
        }

        public Node node() {
            return node;
        }

        /**
         * For a node chained to its producer: the producer's side output it reads, or null for the
         * main output.
         */
        public String inputTag() {
            return inputTag;
        }

        public List<ChainNode> chained() {
            return chained;
        }

        public List<Edge> outputs() {
            return outputs;
        }
    }

    /** A set of chained operators run by {@code parallelism} tasks. */
    public static final class Vertex {
        private final int index;
        private final int parallelism;
        private final ChainNode head;
        private final List<Edge> inputs = new ArrayList<>();

        Vertex(int index, int parallelism, ChainNode head) {
            this.index = index;
            this.parallelism = parallelism;
            this.head = head;
        }

        public int index() {
            return index;
        }

        public String name() {
            return head.node().name();
        }

        public int parallelism() {
            return parallelism;
        }

        public ChainNode head() {
            return head;
        }

        public List<Edge> inputs() {
            return inputs;
        }

        /** True if the head is a source. */
        public boolean isSource() {
            return head.node() instanceof SourceNode;
        }
    }

    /**
     * A connection between vertices.
     *
     * @param index position among all edges of the graph
     * @param from producing vertex
     * @param fromNode the operator in {@code from} that emits into this edge
     * @param to consuming vertex
     * @param mode how records pick a target subtask
     * @param keySelector the key selector of a keyed edge, else null
     * @param tag the side output of {@code fromNode} this edge carries, or null for its main output
     */
    public record Edge(
            int index,
            Vertex from,
            ChainNode fromNode,
            Vertex to,
            EdgeMode mode,
            KeySelector<Object, Object> keySelector,
            String tag) {}

    /** One producer of a node's input: a node and which of its outputs (null: the main one). */
    private record Producer(Node node, String tag) {}

    private final List<Vertex> vertices;
    private final List<Edge> edges;

    private JobGraph(List<Vertex> vertices, List<Edge> edges) {
        this.vertices = List.copyOf(vertices);
        this.edges = List.copyOf(edges);
    }

    public List<Vertex> vertices() {
        return vertices;
    }

    public List<Edge> edges() {
        return edges;
    }

    /**
     * Plans {@code nodes}, given in creation order (so every input precedes its consumers).
     *
     * @param defaultParallelism parallelism of nodes that set none
     */
    public static JobGraph plan(List<Node> nodes, int defaultParallelism) {
        Map<Node, ChainNode> chainNodes = new HashMap<>();
        Map<Node, Vertex> vertexOf = new HashMap<>();
        List<Vertex> vertices = new ArrayList<>();
        List<Edge> edges = new ArrayList<>();
        for (Node node : nodes) {
            if (node instanceof UnionNode || node instanceof SideOutputNode) {
                continue;
            }
            ChainNode chainNode = new ChainNode(node);
            chainNodes.put(node, chainNode);
            int parallelism = parallelismOf(node, defaultParallelism);
            if (node instanceof SourceNode) {
                Vertex vertex = new Vertex(vertices.size(), parallelism, chainNode);
                vertices.add(vertex);
                vertexOf.put(node, vertex);
                continue;
            }
            OperatorNode operator = (OperatorNode) node;
            List<Producer> producers = new ArrayList<>();
            collectProducers(operator.input(), null, producers);
            Producer single = producers.size() == 1 ? producers.get(0) : null;
            if (single != null
                    && operator.partitioning() == Partitioning.FORWARD
                    && parallelismOf(single.node(), defaultParallelism) == parallelism) {
                chainNode.inputTag = single.tag();
                chainNodes.get(single.node()).chained().add(chainNode);
                vertexOf.put(node, vertexOf.get(single.node()));
                continue;
            }
            Vertex vertex = new Vertex(vertices.size(), parallelism, chainNode);
            vertices.add(vertex);
            vertexOf.put(node, vertex);
            for (Producer producer : producers) {
                Vertex from = vertexOf.get(producer.node());
                EdgeMode mode = modeOf(operator, from.parallelism() == parallelism);
                Edge edge =
                        new Edge(
                                edges.size(),
                                from,
                                chainNodes.get(producer.node()),
                                vertex,
                                mode,
                                operator.keySelector(),
                                producer.tag());
                edges.add(edge);
                chainNodes.get(producer.node()).outputs().add(edge);
                vertex.inputs().add(edge);
            }
        }
        return new JobGraph(vertices, edges);
    }

    private static EdgeMode modeOf(OperatorNode operator, boolean sameParallelism) {
        switch (operator.partitioning()) {
            case KEYED:
                return EdgeMode.KEYED;
            case FORWARD:
                return sameParallelism ? EdgeMode.POINTWISE : EdgeMode.REBALANCE;
            default:
                return EdgeMode.REBALANCE;
        }
    }

    private static void collectProducers(Node input, String tag, List<Producer> out) {
        if (input instanceof UnionNode union) {
            for (Node each : union.inputs()) {
                collectProducers(each, tag, out);
            }
        } else if (input instanceof SideOutputNode side) {
            collectProducers(side.producer(), side.tag(), out);
        } else {
            out.add(new Producer(input, tag));
        }
    }

    /** True if some step of the job gives records event time. */
    public boolean usesEventTime() {
        for (Vertex vertex : vertices) {
            if (assignsTime(vertex.head())) {
                return true;
            }
        }
        return false;
    }

    private static boolean assignsTime(ChainNode node) {
        if (node.node() instanceof OperatorNode operator && operator.assignsTime()) {
            return true;
        }
        if (node.node() instanceof SourceNode source && source.watermarks() != null) {
            return true;
        }
        for (ChainNode child : node.chained()) {
            if (assignsTime(child)) {
                return true;
            }
        }
        return false;
    }

    /** The parallelism {@code node} runs at. */
    public static int parallelismOf(Node node, int defaultParallelism) {
        return node.parallelism() > 0 ? node.parallelism() : defaultParallelism;
    }
}
