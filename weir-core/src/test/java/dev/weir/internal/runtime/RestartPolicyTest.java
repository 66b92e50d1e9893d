package dev.weir.internal.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.api.RestartStrategy;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class RestartPolicyTest {
    static final long MS = 1_000_000;

    @Test
    void fixedDelayRestartsUpToMaxAttemptsThenGivesUp() {
        RestartPolicy policy =
                new RestartPolicy(RestartStrategy.fixedDelay(2, Duration.ofMillis(30)), 1);
        assertThat(policy.onFailure(0)).isEqualTo(30 * MS);
        assertThat(policy.onFailure(100 * MS)).isEqualTo(30 * MS);
        assertThat(policy.onFailure(200 * MS)).isEqualTo(-1);
        assertThat(policy.attempts()).isEqualTo(2);
    }

    @Test
    void exponentialBackoffGrowsToItsCapAndResetsAfterAQuietPeriod() {
        RestartPolicy policy =
                new RestartPolicy(
                        RestartStrategy.exponentialBackoff(
                                Duration.ofMillis(10),
                                Duration.ofMillis(40),
                                2.0,
                                0.0,
                                Duration.ofSeconds(10),
                                100),
                        1);
        long t = 0;
        assertThat(policy.onFailure(t += MS)).isEqualTo(10 * MS);
        assertThat(policy.onFailure(t += MS)).isEqualTo(20 * MS);
        assertThat(policy.onFailure(t += MS)).isEqualTo(40 * MS);
        assertThat(policy.onFailure(t += MS)).isEqualTo(40 * MS);
        assertThat(policy.onFailure(t + 11_000 * MS)).isEqualTo(10 * MS);
    }

    @Test
    void exponentialBackoffJitterStaysWithinItsBoundsAndIsSeeded() {
        RestartStrategy strategy =
                RestartStrategy.exponentialBackoff(
                        Duration.ofMillis(100),
                        Duration.ofMillis(100),
                        1.0,
                        0.5,
                        Duration.ofHours(1),
                        100);
        RestartPolicy a = new RestartPolicy(strategy, 7);
        RestartPolicy b = new RestartPolicy(strategy, 7);
        for (int i = 0; i < 50; i++) {
            long delay = a.onFailure(i);
            assertThat(delay).isBetween(50 * MS, 150 * MS).isEqualTo(b.onFailure(i));
        }
    }

    @Test
    void failureRateGivesUpWhenTooManyFailuresFallInTheWindow() {
        RestartPolicy policy =
                new RestartPolicy(
                        RestartStrategy.failureRate(2, Duration.ofSeconds(1), Duration.ofMillis(5)),
                        1);
        assertThat(policy.onFailure(0)).isEqualTo(5 * MS);
        assertThat(policy.onFailure(100 * MS)).isEqualTo(5 * MS);
        assertThat(policy.onFailure(1_500 * MS)).isEqualTo(5 * MS);
        assertThat(policy.onFailure(1_600 * MS)).isEqualTo(5 * MS);
        assertThat(policy.onFailure(1_700 * MS)).isEqualTo(-1);
    }

    @Test
    void noRestartGivesUpAtOnce() {
        assertThat(new RestartPolicy(RestartStrategy.none(), 1).onFailure(0)).isEqualTo(-1);
    }
}
