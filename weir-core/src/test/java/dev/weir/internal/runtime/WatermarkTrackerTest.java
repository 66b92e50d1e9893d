package dev.weir.internal.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.internal.operators.Output;
import org.junit.jupiter.api.Test;

/** A task's watermark: the minimum over its open inputs, never going back. */
class WatermarkTrackerTest {
    static final long NONE = Long.MIN_VALUE;

    @Test
    void theWatermarkIsTheMinimumOverOpenChannelsAndOnlyGrows() {
        WatermarkTracker tracker = new WatermarkTracker(2);
        assertThat(tracker.onWatermark(0, 10)).as("channel 1 has none yet").isEqualTo(NONE);
        assertThat(tracker.onWatermark(1, 7)).isEqualTo(7);
        assertThat(tracker.onWatermark(1, 12)).isEqualTo(10);
        assertThat(tracker.onWatermark(0, 9)).as("a channel going back is ignored").isEqualTo(NONE);
        assertThat(tracker.current()).isEqualTo(10);
    }

    @Test
    void anEndedChannelNoLongerHoldsTheWatermarkBack() {
        WatermarkTracker tracker = new WatermarkTracker(3);
        tracker.onWatermark(0, 50);
        tracker.onWatermark(1, 20);
        assertThat(tracker.onEnd(2)).isEqualTo(20);
        assertThat(tracker.onEnd(1)).isEqualTo(50);
        assertThat(tracker.onEnd(0)).as("all ended: the end of input takes over").isEqualTo(NONE);
    }

    @Test
    void anIdleChannelIsLeftOutOfTheMinimumUntilItsNextWatermark() {
        WatermarkTracker tracker = new WatermarkTracker(2);
        assertThat(tracker.onWatermark(0, 10)).isEqualTo(NONE);
        assertThat(tracker.onWatermark(1, Output.IDLE)).as("channel 1 idle").isEqualTo(10);
        assertThat(tracker.onWatermark(0, 30)).isEqualTo(30);
        assertThat(tracker.onWatermark(1, 20))
                .as("active again, behind: the task's watermark does not go back")
                .isEqualTo(NONE);
        assertThat(tracker.onWatermark(0, 40)).isEqualTo(NONE);
        assertThat(tracker.onWatermark(1, 35)).isEqualTo(35);
    }

    @Test
    void aTaskWhoseOpenChannelsAreAllIdleIsIdleAndSaysWhenItIsActiveAgain() {
        WatermarkTracker tracker = new WatermarkTracker(3);
        tracker.onWatermark(0, 10);
        tracker.onWatermark(1, 10);
        tracker.onEnd(2);
        assertThat(tracker.onWatermark(0, Output.IDLE)).isEqualTo(NONE);
        assertThat(tracker.onWatermark(1, Output.IDLE)).isEqualTo(Output.IDLE);
        assertThat(tracker.onWatermark(1, Output.IDLE)).as("said once").isEqualTo(NONE);
        assertThat(tracker.onWatermark(0, 5))
                .as("active again at the watermark it had")
                .isEqualTo(10);
        assertThat(tracker.onWatermark(0, 15)).isEqualTo(15);
    }

    /**
     * A channel that went idle first does not hold back what the others reached before they went
     * idle too: once all are idle, the task's watermark is the largest (windows the busy channel
     * passed fire), then it is idle. It used to stay at the minimum for good.
     */
    @Test
    void whenEveryChannelIsIdleTheLargestWatermarkIsEmittedFirst() {
        WatermarkTracker tracker = new WatermarkTracker(2);
        assertThat(tracker.onWatermark(1, Output.IDLE)).isEqualTo(NONE); // empty, idle at once
        assertThat(tracker.onWatermark(0, 50)).isEqualTo(50);
        assertThat(tracker.onWatermark(0, 98)).isEqualTo(98);
        tracker = new WatermarkTracker(2);
        tracker.onWatermark(1, 3);
        tracker.onWatermark(0, 98); // channel 1 still holds the minimum at 3
        assertThat(tracker.current()).isEqualTo(3);
        assertThat(tracker.onWatermark(1, Output.IDLE)).isEqualTo(98); // left out: 98
        assertThat(tracker.onWatermark(0, Output.IDLE)).isEqualTo(Output.IDLE);
        assertThat(tracker.takeFlushed()).as("nothing more to flush").isEqualTo(NONE);

        tracker = new WatermarkTracker(2);
        tracker.onWatermark(0, 98);
        tracker.onWatermark(1, 3);
        assertThat(tracker.onWatermark(0, Output.IDLE)).as("channel 0 idle first").isEqualTo(NONE);
        assertThat(tracker.current()).isEqualTo(3);
        assertThat(tracker.onWatermark(1, Output.IDLE)).isEqualTo(Output.IDLE);
        assertThat(tracker.takeFlushed()).as("the largest, now that all are idle").isEqualTo(98);
        assertThat(tracker.current()).isEqualTo(98);
        assertThat(tracker.takeFlushed()).as("once").isEqualTo(NONE);
    }
}
