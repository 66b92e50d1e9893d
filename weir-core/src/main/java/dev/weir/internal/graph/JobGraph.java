package dev.weir.internal.graph;

import dev.weir.api.function.KeySelector;
import dev.weir.internal.graph.Node.OperatorNode;
import dev.weir.internal.graph.Node.Partitioning;
import dev.weir.internal.graph.Node.SourceNode;
import dev.weir.internal.graph.Node.UnionNode;
import dev.weir.internal.runtime.RecordWriter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The physical plan: vertices of chained operators connected by partitioned edges.
 *
 * <p>An operator is chained into its input's vertex (called directly, no channel) when it has a
 * single input, the edge is forward, and both run at the same parallelism. Unions disappear: their
 * consumer simply gets several input edges.
 */
public final class JobGraph {
    /** One operator inside a vertex, with the operators chained after it and its network edges. */
    public static final class ChainNode {
        private final Node node;
        private final List<ChainNode> chained = new ArrayList<>();
        private final List<Edge> outputs = new ArrayList<>();

        ChainNode(Node node) {
            this.node = node;
        }

        public Node node() {
            return node;
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
     */
    public record Edge(
            int index,
            Vertex from,
            ChainNode fromNode,
            Vertex to,
            RecordWriter.Mode mode,
            KeySelector<Object, Object> keySelector) {}

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
            if (node instanceof UnionNode) {
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
            List<Node> producers = new ArrayList<>();
            collectProducers(operator.input(), producers);
            Node single = producers.size() == 1 ? producers.get(0) : null;
            if (single != null
                    && operator.partitioning() == Partitioning.FORWARD
                    && parallelismOf(single, defaultParallelism) == parallelism) {
                chainNodes.get(single).chained().add(chainNode);
                vertexOf.put(node, vertexOf.get(single));
                continue;
            }
            Vertex vertex = new Vertex(vertices.size(), parallelism, chainNode);
            vertices.add(vertex);
            vertexOf.put(node, vertex);
            for (Node producer : producers) {
                Vertex from = vertexOf.get(producer);
                RecordWriter.Mode mode = modeOf(operator, from.parallelism() == parallelism);
                Edge edge =
                        new Edge(
                                edges.size(),
                                from,
                                chainNodes.get(producer),
                                vertex,
                                mode,
                                operator.keySelector());
                edges.add(edge);
                chainNodes.get(producer).outputs().add(edge);
                vertex.inputs().add(edge);
            }
        }
        return new JobGraph(vertices, edges);
    }

    private static RecordWriter.Mode modeOf(OperatorNode operator, boolean sameParallelism) {
        switch (operator.partitioning()) {
            case KEYED:
                return RecordWriter.Mode.KEYED;
            case FORWARD:
                return sameParallelism ? RecordWriter.Mode.POINTWISE : RecordWriter.Mode.REBALANCE;
            default:
                return RecordWriter.Mode.REBALANCE;
        }
    }

    private static void collectProducers(Node input, List<Node> out) {
        if (input instanceof UnionNode union) {
            for (Node each : union.inputs()) {
                collectProducers(each, out);
            }
        } else {
            out.add(input);
        }
    }

    /** The parallelism {@code node} runs at. */
    public static int parallelismOf(Node node, int defaultParallelism) {
        return node.parallelism() > 0 ? node.parallelism() : defaultParallelism;
    }
}
