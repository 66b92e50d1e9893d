package dev.weir.internal.checkpoint;

import dev.weir.api.state.KeyedStateBackend;
import java.util.List;
import java.util.Map;

/**
 * What one task captured at a barrier, copied so the task can continue while another thread
 * serialises it.
 *
 * @param taskName {@code vertex#subtask}
 * @param sourceName the name of the task's source, or empty
 * @param splits the state of every split of the task's source (ended splits included)
 * @param operators the state of each operator in the task's chain
 */
public record TaskSnapshot(
        String taskName,
        String sourceName,
        Map<String, SplitState> splits,
        List<OperatorSnapshot> operators) {
    /**
     * One operator's state.
     *
     * @param name the operator's name
     * @param subtask its subtask index
     * @param parallelism its parallelism
     * @param operatorState non-keyed state bytes, or null
     * @param keyed a snapshot of its keyed state, or null
     * @param backendId the id of the backend that took {@code keyed}, or null
     */
    public record OperatorSnapshot(
            String name,
            int subtask,
            int parallelism,
            byte[] operatorState,
            KeyedStateBackend.KeyedSnapshot keyed,
            String backendId) {}
}
