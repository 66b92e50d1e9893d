package dev.weir.internal.runtime;

import dev.weir.api.state.KeyedSection;
import dev.weir.api.state.KeyedStateBackend;
import dev.weir.internal.checkpoint.SplitState;
import java.util.List;
import java.util.Map;

/**
 * What one task restores before it opens: source positions, and per operator (by position in the
 * chain) its keyed state and non-keyed state.
 *
 * @param checkpointId the id of the checkpoint or savepoint restored, -1 for none
 * @param splits the state of each split of the task's source
 * @param operators per chained operator, in the task's order
 */
record TaskRestore(
        long checkpointId, Map<String, SplitState> splits, List<OperatorRestore> operators) {
    /**
     * One operator's share.
     *
     * @param keyed keyed state of the old subtasks whose key groups overlap this subtask's
     * @param firstKeyGroup first key group this subtask owns
     * @param lastKeyGroup last key group this subtask owns
     * @param operatorStates non-keyed states of the old subtasks assigned to this one
     * @param copy the in-memory keyed state of this same subtask (a checkpoint restored from
     *     memory), or null
     */
    record OperatorRestore(
            List<KeyedSection> keyed,
            int firstKeyGroup,
            int lastKeyGroup,
            List<byte[]> operatorStates,
            KeyedStateBackend.KeyedSnapshot copy) {}

    static final TaskRestore NONE = new TaskRestore(-1, Map.of(), List.of());
}
