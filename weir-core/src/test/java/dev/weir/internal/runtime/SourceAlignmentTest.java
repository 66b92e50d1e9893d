package dev.weir.internal.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.internal.operators.Output;
import org.junit.jupiter.api.Test;

/** Which siblings hold a source subtask back, and by how much. */
class SourceAlignmentTest {
    private static final long STALL = 1_000;

    @Test
    void aSubtaskMoreThanTheDriftAheadOfALiveSiblingWaits() {
        SourceAlignment alignment = new SourceAlignment(3, 100, STALL);
        alignment.publish(0, 1_000, true, 0);
        alignment.publish(1, 1_100, true, 0);
        alignment.publish(2, 1_101, true, 0);
        assertThat(alignment.mayRead(0, 10)).isTrue();
        assertThat(alignment.mayRead(1, 10)).as("exactly the drift ahead").isTrue();
        assertThat(alignment.mayRead(2, 10)).as("one past the drift").isFalse();
        alignment.publish(0, 1_001, true, 20); // the slowest moves on: the fast one reads again
        assertThat(alignment.mayRead(2, 30)).isTrue();
    }

    @Test
    void siblingsWithoutAWatermarkIdleEndedStalledOrWithNothingToReadDoNotCount() {
        SourceAlignment alignment = new SourceAlignment(2, 100, STALL);
        alignment.publish(0, 5_000, true, 0);
        assertThat(alignment.mayRead(0, 10)).as("sibling has no watermark yet").isTrue();
        alignment.publish(1, 0, true, 0);
        assertThat(alignment.mayRead(0, 10)).isFalse();
        alignment.publish(1, Output.IDLE, true, 20);
        assertThat(alignment.mayRead(0, 30)).as("sibling idle").isTrue();
        alignment.publish(1, 0, true, 40);
        assertThat(alignment.mayRead(0, 50)).isFalse();
        assertThat(alignment.mayRead(0, 40 + STALL - 1)).isFalse();
        assertThat(alignment.mayRead(0, 40 + STALL)).as("sibling stood still").isTrue();
        alignment.publish(1, 1, true, 40 + STALL); // moves again: counts again
        assertThat(alignment.mayRead(0, 40 + STALL + 1)).isFalse();
        alignment.publish(1, 2, false, 40 + STALL + 2);
        assertThat(alignment.mayRead(0, 40 + STALL + 3))
                .as("sibling found nothing to read")
                .isTrue();
        alignment.publish(1, 3, true, 40 + STALL + 4);
        assertThat(alignment.mayRead(0, 40 + STALL + 5)).isFalse();
        alignment.publish(1, Long.MAX_VALUE, false, 40 + STALL + 6);
        assertThat(alignment.mayRead(0, 40 + STALL + 7)).as("sibling ended").isTrue();
    }

    @Test
    void aSubtaskWithoutAWatermarkOfItsOwnOrIdleAlwaysReads() {
        SourceAlignment alignment = new SourceAlignment(2, 100, STALL);
        alignment.publish(1, 0, true, 0);
        assertThat(alignment.mayRead(0, 10)).isTrue();
        alignment.publish(0, Output.IDLE, true, 0);
        assertThat(alignment.mayRead(0, 10)).isTrue();
    }

    @Test
    void extremeWatermarksDoNotOverflow() {
        SourceAlignment alignment = new SourceAlignment(2, Long.MAX_VALUE / 2, STALL);
        alignment.publish(0, Long.MAX_VALUE - 1, true, 0);
        alignment.publish(1, Long.MAX_VALUE - 2, true, 0);
        assertThat(alignment.mayRead(0, 1)).isTrue();
        alignment.publish(1, Long.MIN_VALUE + 2, true, 2);
        assertThat(alignment.mayRead(0, 3)).isFalse();
    }

    @Test
    void driftAndStallMustBePositive() {
        assertThatThrownBy(() -> new SourceAlignment(2, 0, STALL))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("positive drift");
    }
}
