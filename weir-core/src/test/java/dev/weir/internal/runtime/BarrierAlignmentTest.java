package dev.weir.internal.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.internal.runtime.BarrierAlignment.Step;
import org.junit.jupiter.api.Test;

/** Barrier alignment as a unit (invariant 2 of docs/design/001-checkpoints.md). */
class BarrierAlignmentTest {
    @Test
    void exactlyOnceBlocksEachChannelThatDeliveredTheBarrierUntilAllHave() {
        BarrierAlignment alignment = new BarrierAlignment(3, true);
        assertThat(alignment.onBarrier(0, 5, 100)).isEqualTo(Step.WAIT);
        assertThat(alignment.isBlocked(0)).isTrue();
        assertThat(alignment.isBlocked(1)).isFalse();
        assertThat(alignment.onBarrier(2, 5, 150)).isEqualTo(Step.WAIT);
        assertThat(alignment.onBarrier(1, 5, 170)).isEqualTo(Step.ALIGNED);
        assertThat(alignment.checkpointId()).isEqualTo(5);
        assertThat(alignment.startNanos()).isEqualTo(100);
        alignment.reset();
        assertThat(alignment.isBlocked(0)).isFalse();
        assertThat(alignment.checkpointId()).isEqualTo(-1);
    }

    @Test
    void atLeastOnceNeverBlocksButStillAligns() {
        BarrierAlignment alignment = new BarrierAlignment(2, false);
        assertThat(alignment.onBarrier(1, 3, 0)).isEqualTo(Step.WAIT);
        assertThat(alignment.isBlocked(1)).isFalse();
        assertThat(alignment.onBarrier(0, 3, 0)).isEqualTo(Step.ALIGNED);
    }

    @Test
    void aNewerBarrierAbandonsTheOlderAlignmentAndAnOlderOneIsIgnored() {
        BarrierAlignment alignment = new BarrierAlignment(2, true);
        alignment.onBarrier(0, 4, 0);
        assertThat(alignment.onBarrier(1, 6, 10)).isEqualTo(Step.WAIT);
        assertThat(alignment.checkpointId()).isEqualTo(6);
        assertThat(alignment.isBlocked(0)).as("the abandoned barrier no longer blocks").isFalse();
        assertThat(alignment.onBarrier(0, 4, 20)).as("late barrier of 4").isEqualTo(Step.WAIT);
        assertThat(alignment.onBarrier(0, 6, 30)).isEqualTo(Step.ALIGNED);
    }

    @Test
    void aChannelThatEndsNoLongerHoldsTheAlignmentUp() {
        BarrierAlignment alignment = new BarrierAlignment(2, true);
        assertThat(alignment.onEnd(1)).as("idle: nothing to complete").isEqualTo(Step.WAIT);
        assertThat(alignment.onBarrier(0, 9, 0)).isEqualTo(Step.ALIGNED);
        alignment.reset();

        BarrierAlignment other = new BarrierAlignment(2, true);
        other.onBarrier(0, 9, 0);
        assertThat(other.onEnd(1)).isEqualTo(Step.ALIGNED);
    }
}
