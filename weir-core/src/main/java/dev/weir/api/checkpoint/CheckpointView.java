package dev.weir.api.checkpoint;

import dev.weir.api.codec.Codec;
import dev.weir.api.state.StateBackends;
import dev.weir.internal.checkpoint.CheckpointStore;
import dev.weir.internal.checkpoint.RestoredCheckpoint;
import dev.weir.internal.checkpoint.StateFiles.OperatorState;
import dev.weir.internal.operators.TwoPhaseCommitSinkOperator;
import dev.weir.internal.state.HeapKeyedStateBackend.RawEntry;
import dev.weir.internal.state.RawKeyedState;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;

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
     * @param directory a checkpoint or savepoint directory (such as {@code chk-42}), not the job's
     *     checkpoint directory that holds them; see {@link #latest} for that
     * @return a view of it; reads only and takes no lock
     * @throws IllegalArgumentException if the path holds no checkpoint of its own (it does not
     *     exist, is empty, or is a job's checkpoint directory or the directory savepoints were
     *     written into: the message names the newest checkpoint inside)
     * @throws CheckpointCorruptedException if any file fails verification
     */
    public static CheckpointView open(Path directory) {
        CheckpointStore.refuseWrongRestorePath(directory);
        return new CheckpointView(RestoredCheckpoint.load(directory));
    }

    /**
     * The job instance id kept in a checkpoint directory ({@link
     * dev.weir.api.sink.SinkContext#jobInstanceId()}), for tools that act for a stopped job: a sink
     * may record it next to what it leaves in an external system, and a tool can check that what it
     * is about to change belongs to this directory's job.
     *
     * @param checkpointDirectory a job's checkpoint directory
     * @return the id, or empty if the directory has none (no job with checkpoints ran on it yet, or
     *     it was written before Weir kept one)
     * @throws UncheckedIOException if the file exists but cannot be read
     */
    public static Optional<String> instanceId(Path checkpointDirectory) {
        Path file = checkpointDirectory.resolve("_instance-id");
        try {
            String id = Files.readString(file, java.nio.charset.StandardCharsets.US_ASCII).trim();
            return id.isEmpty() ? Optional.empty() : Optional.of(id);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The newest complete checkpoint (one with a manifest) in a job's checkpoint directory, or a
     * savepoint the job took after it (its sinks committed the savepoint's output; a job stopped
     * with a savepoint ends there) — the one a run with resume {@code "latest"} would restore — or
     * empty if there is none. Reads only: takes no lock, so it also works beside a running job.
     *
     * @param checkpointDirectory the job's checkpoint directory ({@link
     *     CheckpointConfig#directory()})
     * @return the newest complete checkpoint, or empty if there is none or the directory does not
     *     exist
     * @throws java.io.UncheckedIOException if the directory cannot be listed
     * @throws IllegalStateException if that is a savepoint that is gone (the message says what to
     *     do)
     * @throws CheckpointCorruptedException if that checkpoint fails verification
     */
    public static Optional<CheckpointView> latest(Path checkpointDirectory) {
        return CheckpointStore.latestIn(checkpointDirectory, false).map(CheckpointView::open);
    }

    /**
     * The prepared, not yet committed transactions of the two-phase-commit sink called {@code sink}
     * in this checkpoint (what a restore would commit), decoded with the sink's {@code
     * committableCodec()}, per the id of the checkpoint whose barrier prepared them; empty if the
     * sink holds none or the checkpoint has no such sink.
     *
     * @param <C> the sink's committable type
     * @param sink the sink's name in the pipeline
     * @param codec the codec the sink's {@code committableCodec()} returns
     * @return committables by the id of the checkpoint that prepared them, oldest first
     * @throws IllegalArgumentException if that operator's state is not a two-phase-commit sink's
     *     written with {@code codec}
     */
    public <C> SortedMap<Long, List<C>> pendingCommittables(String sink, Codec<C> codec) {
        SortedMap<Long, List<C>> pending = new TreeMap<>();
        for (OperatorState subtask : checkpoint.operators().getOrDefault(sink, List.of())) {
            if (subtask.operatorState() == null) {
                continue;
            }
            try {
                for (Map.Entry<Long, C> entry :
                        TwoPhaseCommitSinkOperator.decodePending(subtask.operatorState(), codec)
                                .entrySet()) {
                    pending.computeIfAbsent(entry.getKey(), id -> new ArrayList<>())
                            .add(entry.getValue());
                }
            } catch (IOException | RuntimeException e) {
                throw new IllegalArgumentException(
                        "the state of operator '"
                                + sink
                                + "' in "
                                + checkpoint.path()
                                + " is not a two-phase-commit sink's written with "
                                + codec.id(),
                        e);
            }
        }
        return pending;
    }

    /**
     * The checkpoint's id.
     *
     * @return the id, which grows across restarts of the same job
     */
    public long id() {
        return checkpoint.id();
    }

    /**
     * Whether this is a savepoint (taken on request) rather than a periodic checkpoint.
     *
     * @return true for a savepoint
     */
    public boolean isSavepoint() {
        return checkpoint.manifest().savepoint();
    }

    /**
     * The checkpoint's directory.
     *
     * @return the path it was opened from
     */
    public Path path() {
        return checkpoint.path();
    }

    /**
     * Total bytes of the checkpoint's data files.
     *
     * @return the sum of the lengths the manifest lists (the manifest itself not counted)
     */
    public long sizeBytes() {
        long size = 0;
        for (var file : checkpoint.manifest().files()) {
            size += file.length();
        }
        return size;
    }

    /**
     * Names of the operators with state in this checkpoint.
     *
     * @return the names, unmodifiable; sources are listed by {@link #sources()}
     */
    public Set<String> operators() {
        return Collections.unmodifiableSet(checkpoint.operators().keySet());
    }

    /**
     * Position per split of the source called {@code source} (empty if it has none).
     *
     * @param source the source's name in the pipeline
     * @return split id to offset, sorted by split id; a copy
     */
    public Map<String, Long> offsets(String source) {
        return new TreeMap<>(checkpoint.offsets(source));
    }

    /**
     * The value state {@code state} of operator {@code operator}, per key, decoded with {@code
     * codec}. The short form {@code process(name, codec, (key, value, state, out) -> ...)} and
     * {@code reduce} call their state {@code "value"}.
     *
     * @param <V> the state's value type
     * @param operator the operator's name in the pipeline
     * @param state the state's name; see {@link #keyedStates} for the names an operator declared
     * @param codec a codec that reads the values; its id should match {@link
     *     KeyedStateInfo#codecId()}
     * @return key to value over all subtasks; empty if the operator or state is unknown
     * @throws UnsupportedOperationException if the operator keeps its state in a backend other than
     *     the heap's
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

    /**
     * The name of the job that wrote this checkpoint.
     *
     * @return the job name from the manifest
     */
    public String jobName() {
        return checkpoint.manifest().jobName();
    }

    /**
     * The job's number of key groups.
     *
     * @return the max parallelism the job ran with; a restore needs the same value
     */
    public int maxParallelism() {
        return checkpoint.manifest().maxParallelism();
    }

    /**
     * When the checkpoint was triggered (the writing machine's clock).
     *
     * @return the trigger time, to the millisecond
     */
    public Instant triggeredAt() {
        return Instant.ofEpochMilli(checkpoint.manifest().triggerEpochMillis());
    }

    /**
     * Every data file of the checkpoint with its length in bytes, by name, as the manifest says.
     *
     * @return file name to length in bytes, sorted by name
     */
    public SortedMap<String, Long> fileSizes() {
        SortedMap<String, Long> sizes = new TreeMap<>();
        for (var file : checkpoint.manifest().files()) {
            sizes.put(file.name(), file.length());
        }
        return sizes;
    }

    /**
     * Names of the sources with split positions in this checkpoint.
     *
     * @return the names, sorted, unmodifiable
     */
    public Set<String> sources() {
        return Collections.unmodifiableSet(new TreeSet<>(checkpoint.splits().keySet()));
    }

    /**
     * The splits of {@code source} that had ended (their reader returned end of input) before the
     * barrier: a restore does not read them again. Empty if none had, or there is no such source.
     *
     * @param source the source's name in the pipeline
     * @return the ended split ids, sorted
     */
    public Set<String> endedSplits(String source) {
        Set<String> ended = new TreeSet<>();
        checkpoint
                .splits()
                .getOrDefault(source, Map.of())
                .forEach(
                        (split, state) -> {
                            if (state.ended()) {
                                ended.add(split);
                            }
                        });
        return ended;
    }

    /**
     * The watermark of each split of {@code source} (split id to watermark), for a source that
     * assigns event time per split ({@code Pipeline.source(name, source, watermarks)}); a split
     * without one (no strategy, or nothing read yet) is left out.
     *
     * @param source the source's name in the pipeline
     * @return split id to watermark (record time), sorted by split id
     */
    public Map<String, Long> splitWatermarks(String source) {
        Map<String, Long> watermarks = new TreeMap<>();
        checkpoint
                .splits()
                .getOrDefault(source, Map.of())
                .forEach(
                        (split, state) -> {
                            if (state.watermark() != Long.MIN_VALUE) {
                                watermarks.put(split, state.watermark());
                            }
                        });
        return watermarks;
    }

    /**
     * The number of keys with keyed state in operator {@code operator}, over all its subtasks.
     *
     * @param operator the operator's name in the pipeline
     * @return the key count; 0 if the operator is unknown or has no keyed state
     */
    public long keyCount(String operator) {
        long keys = 0;
        for (OperatorState subtask : checkpoint.operators().getOrDefault(operator, List.of())) {
            keys += subtask.keyed() == null ? 0 : subtask.keyed().keyCount();
        }
        return keys;
    }

    /**
     * One keyed state an operator declared.
     *
     * @param name the state's name ({@code "value"} for the short forms of {@code process} and
     *     {@code reduce}; names starting {@code __weir.} are Weir's own, such as timers)
     * @param kind {@code "value"}, {@code "map"} or {@code "list"}
     * @param codecId the {@code Codec.id()} its values were written with (for a map state, of its
     *     keys), or null if the checkpoint predates codec ids; {@link #valueState} needs a codec
     *     that reads it
     */
    public record KeyedStateInfo(String name, String kind, String codecId) {}

    /**
     * The keyed states operator {@code operator} declared, in order; empty if it has no keyed
     * state, or keeps it in a backend other than the heap's (whose bytes are opaque here).
     *
     * @param operator the operator's name in the pipeline
     * @return the states in declaration order, unmodifiable
     */
    public List<KeyedStateInfo> keyedStates(String operator) {
        for (OperatorState subtask : checkpoint.operators().getOrDefault(operator, List.of())) {
            if (subtask.keyed() != null
                    && StateBackends.heap().reads(subtask.keyed().backendId())) {
                RawKeyedState keyed = RawKeyedState.of(subtask.keyed());
                List<KeyedStateInfo> states = new ArrayList<>();
                for (int i = 0; i < keyed.names().size(); i++) {
                    states.add(
                            new KeyedStateInfo(
                                    keyed.names().get(i),
                                    keyed.kinds().get(i).name().toLowerCase(Locale.ROOT),
                                    keyed.codecIds() == null ? null : keyed.codecIds().get(i)));
                }
                return List.copyOf(states);
            }
        }
        return List.of();
    }

    /**
     * Bytes of non-keyed state operator {@code operator} saved, over all its subtasks (a
     * two-phase-commit sink's is its prepared transactions, see {@link #pendingCommittables}).
     *
     * @param operator the operator's name in the pipeline
     * @return the byte count; 0 if the operator is unknown or saved none
     */
    public long operatorStateBytes(String operator) {
        long bytes = 0;
        for (OperatorState subtask : checkpoint.operators().getOrDefault(operator, List.of())) {
            bytes += subtask.operatorState() == null ? 0 : subtask.operatorState().length;
        }
        return bytes;
    }
}
