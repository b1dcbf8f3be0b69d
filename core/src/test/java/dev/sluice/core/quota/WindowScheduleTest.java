package dev.sluice.core.quota;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import org.junit.jupiter.api.Test;

/** Fixed windows; calendar periods have {@link CalendarPeriodScheduleTest}. */
class WindowScheduleTest {

    private static long at(String instant) {
        return Instant.parse(instant).toEpochMilli();
    }

    @Test
    void fixedWindowsStartOnMultiplesOfTheirLengthSinceTheEpoch() {
        WindowSchedule minutes = WindowSchedule.fixed(60_000);
        assertThat(minutes.windowStart(at("2026-11-29T10:15:42.250Z"))).isEqualTo(at("2026-11-29T10:15:00Z"));
        assertThat(minutes.nextWindowStart(at("2026-11-29T10:15:42.250Z"))).isEqualTo(at("2026-11-29T10:16:00Z"));
        // a boundary belongs to the window it starts
        assertThat(minutes.windowStart(at("2026-11-29T10:16:00Z"))).isEqualTo(at("2026-11-29T10:16:00Z"));
    }

    @Test
    void aTimeBeforeTheEpochFallsInTheWindowThatHoldsIt() {
        WindowSchedule tenSeconds = WindowSchedule.fixed(10_000);
        assertThat(tenSeconds.windowStart(-1)).isEqualTo(-10_000);
        assertThat(tenSeconds.nextWindowStart(-1)).isZero();
    }
}
