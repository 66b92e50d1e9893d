package dev.weir.internal.runtime;

import dev.weir.api.state.KeyGroups;
import dev.weir.api.state.KeyedSection;
import dev.weir.api.state.KeyedStateBackend;
import dev.weir.api.state.KeyedStateBackendFactory;
import dev.weir.internal.checkpoint.RestoredCheckpoint;
import dev.weir.internal.checkpoint.SplitState;
import dev.weir.internal.checkpoint.StateFiles.OperatorState;
import dev.weir.internal.graph.JobGraph;
import dev.weir.internal.graph.JobGraph.ChainNode;
import dev.weir.internal.graph.JobGraph.Vertex;
import dev.weir.internal.graph.Node;
import dev.weir.internal.operators.OperatorContext;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Maps a checkpoint's state onto the tasks of a (possibly rescaled) job: keyed state by key group,
 * non-keyed state by old subtask modulo the new parallelism, source offsets by split id.
 */
final class RestoreAssignment {
    private RestoreAssignment() {}

    /** Refuses a checkpoint that cannot be restored into {@code graph}, saying what to change. */
    static void validate(
            JobGraph graph,
            RestoredCheckpoint restored,
            RuntimeConfig config,
            boolean allowNonRestoredState) {
        int saved = restored.manifest().maxParallelism();
        if (saved != config.maxParallelism()) {
            throw new IllegalStateException(
                    "checkpoint "
                            + restored.path()
                            + " was taken with maxParallelism "
                            + saved
                            + " but the pipeline has "
                            + config.maxParallelism()
                            + "; keyed state is partitioned into that many key groups and cannot"
                            + " be remapped; set Pipeline.maxParallelism("
                            + saved
                            + ")");
        }
        Map<String, Node> nodes = new HashMap<>();
        for (Vertex vertex : graph.vertices()) {
            collect(vertex.head(), nodes);
        }
        Set<String> unmapped = new HashSet<>();
        for (Map.Entry<String, List<OperatorState>> entry : restored.operators().entrySet()) {
            boolean hasState = false;
            for (OperatorState state : entry.getValue()) {
                hasState |= state.hasState();
            }
            if (hasState && !nodes.containsKey(entry.getKey())) {
                unmapped.add("operator '" + entry.getKey() + "'");
            }
        }
        for (String source : restored.splits().keySet()) {
            if (!nodes.containsKey(source)) {
                unmapped.add("source '" + source + "'");
            }
        }
        if (!unmapped.isEmpty() && !allowNonRestoredState) {
            throw new IllegalStateException(
                    "checkpoint "
                            + restored.path()
                            + " holds state for "
                            + String.join(", ", unmapped)
                            + " which the pipeline does not have; rename the step back, or start"
                            + " with Pipeline.allowNonRestoredState(true) to drop that state");
        }
        for (Vertex vertex : graph.vertices()) {
            if (vertex.head().node() instanceof Node.SourceNode source) {
                checkSplits(source, vertex.parallelism(), restored);
            }
        }
    }

    private static void checkSplits(
            Node.SourceNode source, int parallelism, RestoredCheckpoint restored) {
        Map<String, SplitState> offsets = restored.splits().get(source.name());
        if (offsets == null) {
            return;
        }
        Set<String> now = new HashSet<>(source.source().splits(parallelism));
        if (!now.containsAll(offsets.keySet())) {
            throw new IllegalStateException(
                    "source '"
                            + source.name()
                            + "' had splits "
                            + offsets.keySet()
                            + " in checkpoint "
                            + restored.path()
                            + " but has "
                            + now
                            + " now, so its offsets cannot be restored; its split ids depend on"
                            + " something that changed (such as the parallelism of a source"
                            + " with one split per subtask). Restore with the setting it had, or"
                            + " give the source a fixed split count from the start (for example"
                            + " Sources.sequence(from, to, splits, rate) or Sources.files(dir,"
                            + " splits); the durable log's splits are its partitions)");
        }
    }

    private static void collect(ChainNode node, Map<String, Node> out) {
        out.put(node.node().name(), node.node());
        for (ChainNode child : node.chained()) {
            collect(child, out);
        }
    }

    /** The share of {@code restored} that subtask {@code subtask} of {@code vertex} restores. */
    static TaskRestore forTask(
            Vertex vertex,
            int subtask,
            List<OperatorContext> contexts,
            RestoredCheckpoint restored,
            RuntimeConfig config,
            KeyedStateBackendFactory backend) {
        int parallelism = vertex.parallelism();
        int first = KeyGroups.rangeStart(subtask, config.maxParallelism(), parallelism);
        int last = KeyGroups.rangeEnd(subtask, config.maxParallelism(), parallelism);
        List<TaskRestore.OperatorRestore> operators = new ArrayList<>();
        for (OperatorContext context : contexts) {
            List<KeyedSection> keyed = new ArrayList<>();
            List<byte[]> operatorStates = new ArrayList<>();
            KeyedStateBackend.KeyedSnapshot copy = null;
            for (OperatorState old :
                    restored.operators().getOrDefault(context.operatorName(), List.of())) {
                if (old.keyed() != null) {
                    if (!backend.reads(old.keyed().backendId())) {
                        throw new dev.weir.api.UnrecoverableException(
                                "checkpoint "
                                        + restored.path()
                                        + " holds the keyed state of step '"
                                        + context.operatorName()
                                        + "' written by state backend '"
                                        + old.keyed().backendId()
                                        + "', which backend '"
                                        + backend.id()
                                        + "' of this pipeline cannot read; restore with the"
                                        + " backend it was written with (Pipeline.stateBackend)");
                    }
                    keyed.add(old.keyed());
                }
                if (old.copy() != null) {
                    if (old.parallelism() != parallelism) {
                        throw new IllegalStateException(
                                "in-memory checkpoint "
                                        + restored.id()
                                        + " was taken at parallelism "
                                        + old.parallelism()
                                        + ", not "
                                        + parallelism);
                    }
                    if (old.subtask() == subtask) {
                        copy = old.copy();
                    }
                }
                // A keyed operator's non-keyed state (its watermark, its end of input) is the
                // same in every old subtask, which all saw the same inputs up to the aligned
                // barrier: every new subtask gets all of it, so one added by scaling up does not
                // start without. Other operators' states go from old j to new j mod parallelism.
                boolean everyone = context.keyedState() != null;
                if (old.operatorState() != null
                        && (everyone || old.subtask() % parallelism == subtask)) {
                    operatorStates.add(old.operatorState());
                }
            }
            operators.add(
                    new TaskRestore.OperatorRestore(keyed, first, last, operatorStates, copy));
        }
        Map<String, SplitState> splits =
                restored.splits().getOrDefault(vertex.head().node().name(), Map.of());
        return new TaskRestore(restored.id(), splits, operators);
    }
}
