package dev.sluice.simulator.limit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** An acceleration limit lets the rate grow by its factor from one window to the next, never faster. */
class AccelerationLimitTest {
    private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

    private static int acceptedOf(AccelerationLimit limit, int requests, Instant at) {
        int accepted = 0;
        for (int i = 0; i < requests; i++) {
            if (limit.accepts(at)) {
                accepted++;
            }
        }
        return accepted;
    }

    @Test
    void theFloorGoesFirstThenEachWindowAtMostTheFactorTimesTheOneBefore() {
        AccelerationLimit limit = new AccelerationLimit(2, Duration.ofSeconds(1), 3);

        assertThat(acceptedOf(limit, 10, START))
                .as("the floor, whatever came before")
                .isEqualTo(3);
        assertThat(acceptedOf(limit, 10, START.plusMillis(1_500)))
                .as("twice the 3 before")
                .isEqualTo(6);
        assertThat(acceptedOf(limit, 20, START.plusMillis(2_600)))
                .as("twice the 6 before")
                .isEqualTo(12);
    }

    @Test
    void aQuietSpellStartsAgainFromTheFloor() {
        AccelerationLimit limit = new AccelerationLimit(2, Duration.ofSeconds(1), 3);
        assertThat(acceptedOf(limit, 3, START)).isEqualTo(3);

        assertThat(acceptedOf(limit, 10, START.plusSeconds(5))).isEqualTo(3);
    }

    @Test
    void aFactorOfOneOrLessIsRefused() {
        assertThatThrownBy(() -> new AccelerationLimit(1, Duration.ofSeconds(1), 3))
                .hasMessage("factor must be > 1, was 1.0");
    }
}
