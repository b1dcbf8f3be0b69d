package dev.sluice.core.quota;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class HeadroomHistoryTest {

    @Test
    void theLeastHeadroomSinceATimeCountsOnlyWhatWasObservedAtOrAfterIt() {
        HeadroomHistory h = new HeadroomHistory();
        h.observe(10, 5);
        h.observe(20, 8);
        h.observe(30, 2);
        h.observe(40, 6);
        assertThat(h.leastSince(0)).isEqualTo(2);
        assertThat(h.leastSince(31)).isEqualTo(6);
        assertThat(h.leastSince(40)).isEqualTo(6);
        assertThat(h.leastSince(41)).isEqualTo(Double.POSITIVE_INFINITY);
        // 30's headroom of 2 undercut 10's and 20's: they are not kept
        assertThat(h.size()).isEqualTo(2);
    }

    @Test
    void reachingTheCeilingAnswersEveryEarlierTimeWithNoHeadroom() {
        HeadroomHistory h = new HeadroomHistory();
        for (int i = 0; i < 10; i++) {
            h.observe(i, 100 - i);
        }
        h.observe(50, 0);
        assertThat(h.size()).isEqualTo(1);
        assertThat(h.leastSince(0)).isZero();
        assertThat(h.leastSince(50)).isZero();
    }

    @Test
    void aRefundLowersTheHeadroomOfEveryMomentSinceItsReservation() {
        HeadroomHistory h = new HeadroomHistory();
        h.observe(1, 3);
        h.observe(5, 6);
        h.observe(9, 8);
        h.levelRaisedSince(4, 4); // a refund of 4 for a reservation made at 4
        assertThat(h.leastSince(0)).isEqualTo(2);
        assertThat(h.leastSince(9)).isEqualTo(4);
        // 1's headroom of 3 is undercut by 5's, now 2: only 5 and 9 are kept
        assertThat(h.size()).isEqualTo(2);
    }

    @Test
    void aLoweredCeilingLowersEveryHeadroomButNeverBelowZero() {
        HeadroomHistory h = new HeadroomHistory();
        h.observe(1, 3);
        h.observe(2, 10);
        h.ceilingLowered(5);
        assertThat(h.leastSince(0)).isZero();
        assertThat(h.leastSince(2)).isEqualTo(5);
    }

    /**
     * Against every observation kept in full: kept to {@link HeadroomHistory#MOST} entries, the
     * answer is never more than the exact least headroom (a refund can only come out smaller), and
     * it is exact while nothing had to be merged.
     */
    @Test
    void keptShortItNeverAnswersMoreThanTheExactLeastHeadroom() {
        SplittableRandom random = new SplittableRandom(19);
        int merged = 0;
        for (int walk = 0; walk < 2_000; walk++) {
            HeadroomHistory h = new HeadroomHistory();
            int n = 1 + random.nextInt(60);
            long[] times = new long[n];
            double[] headrooms = new double[n];
            long t = 0;
            for (int i = 0; i < n; i++) {
                t += 1 + random.nextInt(3);
                times[i] = t;
                // a slow fall with bounces: the shape that keeps the most entries
                headrooms[i] = Math.max(0, (i * 7.0) - random.nextInt(40) + (random.nextInt(20) == 0 ? -1e9 : 0));
                h.observe(times[i], headrooms[i]);
            }
            boolean exact = true;
            for (long since = -1; since <= t + 1; since++) {
                double least = Double.POSITIVE_INFINITY;
                for (int i = 0; i < n; i++) {
                    if (times[i] >= since) {
                        least = Math.min(least, headrooms[i]);
                    }
                }
                assertThat(h.leastSince(since)).isLessThanOrEqualTo(least);
                exact &= h.leastSince(since) == least;
            }
            assertThat(h.size()).isLessThanOrEqualTo(HeadroomHistory.MOST);
            if (!exact) {
                merged++;
            }
        }
        assertThat(merged)
                .as("walks that kept more than MOST entries and so merged")
                .isPositive();
    }
}
