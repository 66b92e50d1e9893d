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
