package dev.weir.flink;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.api.state.KeyGroups;
import java.util.List;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.junit.jupiter.api.Test;

/** Keys land in Weir's key group, and so on Weir's subtask, when Flink routes them. */
class WeirKeyTest {
    record Account(String region, long id) {}

    @Test
    void flinkPutsEveryKeyIntoWeirsKeyGroupAndSubtask() {
        for (int maxParallelism : new int[] {128, 100, 7}) {
            for (int i = 0; i < 5_000; i++) {
                for (Object key : List.of(i, (long) i, "key-" + i, new Account("eu", i))) {
                    WeirKey wrapped = WeirKey.of(key, maxParallelism);
                    int weirGroup = KeyGroups.keyGroupOf(key, maxParallelism);
                    assertThat(KeyGroupRangeAssignment.assignToKeyGroup(wrapped, maxParallelism))
                            .as("key %s of %s groups", key, maxParallelism)
                            .isEqualTo(weirGroup);
                    for (int p : new int[] {1, 2, 3, 7}) {
                        assertThat(
                                        KeyGroupRangeAssignment.assignKeyToParallelOperator(
                                                wrapped, maxParallelism, p))
                                .isEqualTo(KeyGroups.subtaskOf(weirGroup, maxParallelism, p));
                    }
                }
            }
        }
    }

    /**
     * Flink's heap state tables are per key group and hash by {@code hashCode()}: the keys of one
     * group must not share one hash (they did, and a keyed sum over 100,000 keys ran at a sixth of
     * Flink's speed in long collision chains).
     */
    @Test
    void keysOfOneGroupSpreadOverManyHashes() {
        int maxParallelism = 128;
        java.util.Map<Integer, java.util.Set<Integer>> hashesByGroup = new java.util.HashMap<>();
        java.util.Map<Integer, Integer> keysByGroup = new java.util.HashMap<>();
        for (long key = 0; key < 100_000; key++) {
            WeirKey wrapped = WeirKey.of(key, maxParallelism);
            int group = KeyGroups.keyGroupOf(key, maxParallelism);
            hashesByGroup
                    .computeIfAbsent(group, g -> new java.util.HashSet<>())
                    .add(wrapped.hashCode());
            keysByGroup.merge(group, 1, Integer::sum);
        }
        assertThat(hashesByGroup).hasSize(maxParallelism);
        hashesByGroup.forEach(
                (group, hashes) ->
                        assertThat(hashes.size())
                                .as(
                                        "distinct hashes of the %s keys in group %s",
                                        keysByGroup.get(group), group)
                                .isGreaterThan(keysByGroup.get(group) / 2));
    }

    @Test
    void wrappedKeysAreEqualByTheUsersKeyAndSurviveTheirSerializer() throws Exception {
        WeirKey key = WeirKey.of("even", 128);
        assertThat(key).isEqualTo(WeirKey.of("even", 128)).isNotEqualTo(WeirKey.of("odd", 128));
        WeirKeyTypeInfo.KeyCodec codec = new WeirKeyTypeInfo.KeyCodec(128);
        WeirKey back = codec.fromBytes(codec.toBytes(key));
        assertThat(back).isEqualTo(key).hasSameHashCodeAs(key);
        assertThat(back.key()).isEqualTo("even");
    }
}
