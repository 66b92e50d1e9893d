package dev.weir.api.checkpoint;

import dev.weir.api.codec.Codec;
import dev.weir.api.state.StateBackends;
import dev.weir.internal.checkpoint.RestoredCheckpoint;
import dev.weir.internal.checkpoint.StateFiles.OperatorState;
import dev.weir.internal.state.HeapKeyedStateBackend.RawEntry;
import dev.weir.internal.state.RawKeyedState;
import java.nio.file.Path;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * A read-only look into a checkpoint or savepoint on disk, verified against its manifest.
 *
 * <pre>{@code
 * CheckpointView view = CheckpointView.open(path);
 * long offset = view.offsets("numbers").values().stream().mapToLong(Long::longValue).sum();
 * Map<Object, Long> sums = view.valueState("sum", "value", Codecs.LONG);
 * }</pre>
 */
public final class CheckpointView {
    private final RestoredCheckpoint checkpoint;

    private CheckpointView(RestoredCheckpoint checkpoint) {
        this.checkpoint = checkpoint;
    }

    /**
     * Opens the checkpoint in {@code directory}.
     *
     * @throws CheckpointCorruptedException if any file fails verification
     */
    public static CheckpointView open(Path directory) {
        return new CheckpointView(RestoredCheckpoint.load(directory));
    }

    public long id() {
        return checkpoint.id();
    }

    public boolean isSavepoint() {
        return checkpoint.manifest().savepoint();
    }

    public Path path() {
        return checkpoint.path();
    }

    /** Total bytes of the checkpoint's data files. */
    public long sizeBytes() {
        long size = 0;
        for (var file : checkpoint.manifest().files()) {
            size += file.length();
        }
        return size;
    }

    /** Names of the operators with state in this checkpoint. */
    public Set<String> operators() {
        return Collections.unmodifiableSet(checkpoint.operators().keySet());
    }

    /** Position per split of the source called {@code source} (empty if it has none). */
    public Map<String, Long> offsets(String source) {
        return new TreeMap<>(checkpoint.offsets(source));
    }

    /**
     * The value state {@code state} of operator {@code operator}, per key, decoded with {@code
     * codec}. The short form {@code process(name, codec, (key, value, state, out) -> ...)} and
     * {@code reduce} call their state {@code "value"}.
     */
    public <V> Map<Object, V> valueState(String operator, String state, Codec<V> codec) {
        Map<Object, V> values = new HashMap<>();
        List<OperatorState> subtasks = checkpoint.operators().getOrDefault(operator, List.of());
        for (OperatorState subtask : subtasks) {
            if (subtask.keyed() == null) {
                continue;
            }
            if (!StateBackends.heap().reads(subtask.keyed().backendId())) {
                throw new UnsupportedOperationException(
                        "operator '"
                                + operator
                                + "' keeps its state in backend '"
                                + subtask.keyed().backendId()
                                + "'; CheckpointView reads the heap backend's state only");
            }
            RawKeyedState keyed = RawKeyedState.of(subtask.keyed());
            int index = keyed.names().indexOf(state);
            if (index < 0) {
                continue;
            }
            for (RawEntry entry : keyed.entries()) {
                byte[] bytes = entry.values()[index];
                if (bytes != null) {
                    values.put(entry.key(), codec.fromBytes(bytes));
                }
            }
        }
        return values;
    }
}
