package dev.sluice.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.Permit;
import org.junit.jupiter.api.Test;

/** The clock diagnostic's governors admit on the fast path and end every permit, like the real one. */
class ClockShareBenchmarkTest {

    @Test
    void everyClockVariantAdmitsAndSettles() {
        ClockShareBenchmark benchmark = new ClockShareBenchmark();
        benchmark.setUp();
        try {
            for (int i = 0; i < 3; i++) {
                for (Permit p : new Permit[] {
                    benchmark.sluice_1bucket_admitSettle_systemClock(),
                    benchmark.sluice_1bucket_admitSettle_noWallClock(),
                    benchmark.sluice_1bucket_admitSettle_noClock()
                }) {
                    assertThat(p.isSettled()).isTrue();
                    assertThat(p.isReleased()).isTrue();
                }
            }
            assertThat(benchmark.systemClock.controls().outstandingPermits()).isZero();
            assertThat(benchmark.noWallClock.controls().outstandingPermits()).isZero();
            assertThat(benchmark.noClock.controls().outstandingPermits()).isZero();
        } finally {
            benchmark.tearDown();
        }
    }
}
