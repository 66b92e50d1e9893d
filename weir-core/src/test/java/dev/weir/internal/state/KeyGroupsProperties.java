package dev.weir.internal.state;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.api.state.KeyGroups;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

class KeyGroupsProperties {
    @Property
    void everyKeyGroupIsOwnedByTheSubtaskWhoseRangeHoldsIt(
            @ForAll @IntRange(min = 1, max = 4096) int maxParallelism,
            @ForAll @IntRange(min = 1, max = 4096) int parallelism,
            @ForAll long key) {
        if (parallelism > maxParallelism) {
            return;
        }
        int group = KeyGroups.keyGroupOf(key, maxParallelism);
        int subtask = KeyGroups.subtaskOf(group, maxParallelism, parallelism);
        assertThat(group).isBetween(0, maxParallelism - 1);
        assertThat(subtask).isBetween(0, parallelism - 1);
        assertThat(group)
                .isBetween(
                        KeyGroups.rangeStart(subtask, maxParallelism, parallelism),
                        KeyGroups.rangeEnd(subtask, maxParallelism, parallelism));
    }

    @Property
    void rangesTileAllKeyGroupsWithoutGaps(
            @ForAll @IntRange(min = 1, max = 1024) int maxParallelism,
            @ForAll @IntRange(min = 1, max = 1024) int parallelism) {
        if (parallelism > maxParallelism) {
            return;
        }
        int expectedStart = 0;
        for (int subtask = 0; subtask < parallelism; subtask++) {
            assertThat(KeyGroups.rangeStart(subtask, maxParallelism, parallelism))
                    .isEqualTo(expectedStart);
            expectedStart = KeyGroups.rangeEnd(subtask, maxParallelism, parallelism) + 1;
        }
        assertThat(expectedStart).isEqualTo(maxParallelism);
    }
}
