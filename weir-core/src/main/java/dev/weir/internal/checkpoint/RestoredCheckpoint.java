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
 * @param offsets per source name: position per split
 * @param readerStates per source name: reader state per split, where a reader has one
 * @param operators per operator name: the state of each old subtask
 */
public record RestoredCheckpoint(
        long id,
        Path path,
        Manifest manifest,
        Map<String, Map<String, Long>> offsets,
        Map<String, Map<String, byte[]>> readerStates,
        Map<String, List<OperatorState>> operators) {
    /** Reads and verifies the checkpoint or savepoint in {@code directory}. */
    public static RestoredCheckpoint load(Path directory) {
        Manifest manifest = Manifest.readVerified(directory);
        Map<String, Map<String, Long>> offsets = new HashMap<>();
        Map<String, Map<String, byte[]>> readerStates = new HashMap<>();
        Map<String, List<OperatorState>> operators = new LinkedHashMap<>();
        for (Manifest.FileEntry file : manifest.files()) {
            Path path = directory.resolve(file.name());
            TaskState task = StateFiles.parse(path, StateFiles.readAll(path));
            addSource(
                    task.sourceName(), task.offsets(), task.readerStates(), offsets, readerStates);
            for (OperatorState operator : task.operators()) {
                operators.computeIfAbsent(operator.name(), n -> new ArrayList<>()).add(operator);
            }
        }
        return new RestoredCheckpoint(
                manifest.checkpointId(), directory, manifest, offsets, readerStates, operators);
    }

    /**
     * The checkpoint this process just completed, from the task snapshots its files were written
     * from (local recovery): source positions and non-keyed state as written, keyed state as the
     * in-memory copies. A restart in the same process restores it without reading the files.
     */
    public static RestoredCheckpoint fromSnapshots(
            Path directory, Manifest manifest, List<TaskSnapshot> snapshots) {
        Map<String, Map<String, Long>> offsets = new HashMap<>();
        Map<String, Map<String, byte[]>> readerStates = new HashMap<>();
        Map<String, List<OperatorState>> operators = new LinkedHashMap<>();
        for (TaskSnapshot task : snapshots) {
            addSource(
                    task.sourceName(), task.offsets(), task.readerStates(), offsets, readerStates);
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
                manifest.checkpointId(), directory, manifest, offsets, readerStates, operators);
    }

    /** Adds a source task's split positions and reader states under its source's name. */
    private static void addSource(
            String sourceName,
            Map<String, Long> taskOffsets,
            Map<String, byte[]> taskReaderStates,
            Map<String, Map<String, Long>> offsets,
            Map<String, Map<String, byte[]>> readerStates) {
        if (!sourceName.isEmpty()) {
            offsets.computeIfAbsent(sourceName, n -> new LinkedHashMap<>()).putAll(taskOffsets);
            readerStates
                    .computeIfAbsent(sourceName, n -> new LinkedHashMap<>())
                    .putAll(taskReaderStates);
        }
    }
}
