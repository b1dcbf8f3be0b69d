package dev.sluice.core.quota;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RecentRateTest {

    private static final long SECOND = 1_000_000_000L;
    private static final long START = 1_000 * SECOND;

    @Test
    void nothingRecordedIsNoRate() {
        assertThat(new RecentRate().perMinute(START)).isZero();
    }

    @Test
    void theRateIsPerMinuteOverTheLastTenSeconds() {
        RecentRate rate = new RecentRate();
        for (int i = 0; i < 40; i++) {
            rate.record(START + i * SECOND / 2); // two a second for 20 s
        }
        // the last ten seconds held 20 events: 120 a minute
        assertThat(rate.perMinute(START + 19 * SECOND + SECOND / 2)).isEqualTo(120.0);
    }

    @Test
    void aRateSinceTheFirstEventIsOverTheTimeSinceThenNotTenSeconds() {
        RecentRate rate = new RecentRate();
        for (int i = 0; i < 8; i++) {
            rate.record(START + i * SECOND / 4); // four a second for 2 s
        }
        assertThat(rate.perMinute(START + 2 * SECOND)).isEqualTo(240.0);
    }

    @Test
    void eventsInTheFirstSecondCountOverOneSecondAtLeast() {
        RecentRate rate = new RecentRate();
        rate.record(START);
        rate.record(START + 1);
        rate.record(START + 2);
        assertThat(rate.perMinute(START + 3)).isEqualTo(180.0);
    }

    @Test
    void eventsOlderThanTenSecondsNoLongerCount() {
        RecentRate rate = new RecentRate();
        for (int i = 0; i < 10; i++) {
            rate.record(START + i * SECOND / 10);
        }
        assertThat(rate.perMinute(START + 11 * SECOND)).isZero();
    }

    @Test
    void aSecondTenSecondsLaterStartsItsCountAfresh() {
        RecentRate rate = new RecentRate();
        for (int i = 0; i < 5; i++) {
            rate.record(START + SECOND / 2); // five in the first second
        }
        rate.record(START + 10 * SECOND + SECOND / 2); // one in the second that reuses its counter
        assertThat(rate.perMinute(START + 10 * SECOND + SECOND / 2)).isEqualTo(6.0);
    }
}
