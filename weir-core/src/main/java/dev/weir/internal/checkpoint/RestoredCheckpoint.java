package dev.weir.internal.checkpoint;

import dev.weir.internal.checkpoint.StateFiles.OperatorState;
import dev.weir.internal.checkpoint.StateFiles.TaskState;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A verified checkpoint read into memory, indexed for restoring tasks at any parallelism.
 *
 * @param id the checkpoint id
 * @param path its directory
 * @param manifest its manifest
 * @param splits per source name: the state of each split
 * @param operators per operator name: the state of each old subtask
 */
public record RestoredCheckpoint(
        long id,
        Path path,
        Manifest manifest,
        Map<String, Map<String, SplitState>> splits,
        Map<String, List<OperatorState>> operators) {
    /** Reads and verifies the checkpoint or savepoint in {@code directory}. */
    public static RestoredCheckpoint load(Path directory) {
        Manifest manifest = Manifest.readVerified(directory);
        Map<String, Map<String, SplitState>> splits = new HashMap<>();
        Map<String, List<OperatorState>> operators = new LinkedHashMap<>();
        for (Manifest.FileEntry file : manifest.files()) {
            Path path = directory.resolve(file.name());
            TaskState task = StateFiles.parse(path, StateFiles.readAll(path));
            addSource(task.sourceName(), task.splits(), splits);
            for (OperatorState operator : task.operators()) {
                operators.computeIfAbsent(operator.name(), n -> new ArrayList<>()).add(operator);
            }
        }
        return new RestoredCheckpoint(
                manifest.checkpointId(), directory, manifest, splits, operators);
    }

    /**
     * The checkpoint this process just completed, from the task snapshots its files were written
     * from (local recovery): source positions and non-keyed state as written, keyed state as the
     * in-memory copies. A restart in the same process restores it without reading the files.
     */
    public static RestoredCheckpoint fromSnapshots(
            Path directory, Manifest manifest, List<TaskSnapshot> snapshots) {
        Map<String, Map<String, SplitState>> splits = new HashMap<>();
        Map<String, List<OperatorState>> operators = new LinkedHashMap<>();
        for (TaskSnapshot task : snapshots) {
            addSource(task.sourceName(), task.splits(), splits);
            for (TaskSnapshot.OperatorSnapshot operator : task.operators()) {
                operators
                        .computeIfAbsent(operator.name(), n -> new ArrayList<>())
                        .add(
                                new OperatorState(
                                        operator.name(),
                                        operator.subtask(),
                                        operator.parallelism(),
                                        operator.operatorState(),
                                        null,
                                        operator.keyed()));
            }
        }
        return new RestoredCheckpoint(
                manifest.checkpointId(), directory, manifest, splits, operators);
    }

    /** Adds a source task's split states under its source's name. */
    private static void addSource(
            String sourceName,
            Map<String, SplitState> taskSplits,
            Map<String, Map<String, SplitState>> splits) {
        if (!sourceName.isEmpty()) {
            splits.computeIfAbsent(sourceName, n -> new LinkedHashMap<>()).putAll(taskSplits);
        }
    }

    /** Position per split of the source called {@code source} (empty if it has none). */
    public Map<String, Long> offsets(String source) {
        Map<String, Long> offsets = new LinkedHashMap<>();
        splits.getOrDefault(source, Map.of())
                .forEach((split, state) -> offsets.put(split, state.position()));
        return offsets;
    }
}
