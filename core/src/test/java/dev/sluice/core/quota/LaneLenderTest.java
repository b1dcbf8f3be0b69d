package dev.sluice.core.quota;

import static dev.sluice.core.quota.QuotaFixtures.bucketOf;
import static dev.sluice.core.quota.QuotaFixtures.tokenBucket;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.Algorithm;
import dev.sluice.config.Dimension;
import dev.sluice.core.FakeClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A token bucket as the lock-free lane's lender: what it lends comes out of its level, so the
 * level and the room lent stay one bucket, and what the lane admitted counts as reserved once
 * registered. Bucket-side details of lending are in {@link TokenBucketTest}.
 */
class LaneLenderTest {

    private final FakeClock clock = new FakeClock();

    private long room(Bucket b) {
        return b.room(clock.nanoTime(), clock.epochMillis());
    }

    private long roomLeftBesideTheLoans(Bucket b) {
        return b.roomOnFastPath(-1, clock.nanoTime(), clock.epochMillis());
    }

    private void lend(Bucket b, int stripe) {
        b.laneLender().lend(stripe, clock.nanoTime());
    }

    @Test
    void onlyALocalTokenBucketLendsAndItIsOneLenderForGood() {
        Bucket window = bucketOf(
                LimitSpec.builder("rpm", Dimension.REQUESTS, 60)
                        .window(Duration.ofMinutes(1))
                        .algorithm(Algorithm.FIXED_WINDOW)
                        .build(),
                clock);
        Bucket slots =
                bucketOf(LimitSpec.builder("slots", Dimension.CONCURRENCY, 4).build(), clock);
        assertThat(window.laneLender()).isNull();
        assertThat(slots.laneLender()).isNull();

        Bucket tokens = tokenBucket(1_600, Duration.ofMinutes(1), clock);
        LaneLender lender = tokens.laneLender();
        assertThat(lender).isNotNull();
        assertThat(tokens.laneLender())
                .as("routes resolved later get the same lender")
                .isSameAs(lender);
    }

    @Test
    void aLoanIsNeverMoreThanTheLevelHolds() {
        Bucket b = tokenBucket(1_600, Duration.ofMinutes(1), clock);
        b.reserve(1_550, clock.nanoTime(), clock.epochMillis());
        lend(b, 0);
        LaneCredit credit = b.laneLender().credit();
        assertThat(credit.tryTake(0, 51)).isFalse();
        assertThat(credit.tryTake(0, 50)).isTrue();
        assertThat(room(b)).isZero();
    }

    @Test
    void aBucketInDebtLendsNothing() {
        Bucket b = tokenBucket(1_600, Duration.ofMinutes(1), clock);
        b.takeMore(1_700, clock.nanoTime(), clock.epochMillis());
        lend(b, 0);
        assertThat(b.laneLender().credit().tryTake(0, 1)).isFalse();
        assertThat(room(b)).isEqualTo(-100);
    }

    /** A sixteenth of a burst under 16 is nothing: a stripe still gets one call's worth. */
    @Test
    void aBurstSmallerThanSixteenStillLendsOne() {
        Bucket b = tokenBucket(10, Duration.ofMinutes(1), clock);
        lend(b, 0);
        lend(b, 0);
        LaneCredit credit = b.laneLender().credit();
        assertThat(credit.tryTake(0, 1)).isTrue();
        assertThat(credit.tryTake(0, 1)).isFalse();
        assertThat(room(b)).isEqualTo(9);
    }

    /** The lane admits on every stripe at once, and still never beyond the one bucket. */
    @Test
    void loansToEveryStripeComeOutOfTheOneBucket() {
        Bucket b = tokenBucket(1_600, Duration.ofMinutes(1), clock);
        LaneCredit credit = b.laneLender().credit();
        for (int stripe = 0; stripe < LaneCredit.STRIPES; stripe++) {
            lend(b, stripe);
        }
        assertThat(roomLeftBesideTheLoans(b)).isEqualTo(800);
        for (int stripe = 0; stripe < LaneCredit.STRIPES; stripe++) {
            assertThat(credit.tryTake(stripe, 100)).isTrue();
        }
        clock.advance(Duration.ofHours(1));
        // taken by the lane, not yet registered: the refill leaves them their room
        assertThat(room(b)).isEqualTo(800);
        assertThat(b.reserved()).isEqualTo(800);
    }

    /**
     * Registering moves what the lane took from lent to reserved and lets the level refill to the
     * whole ceiling again; the refill up to that moment is at the cap that held while it was lent,
     * so the registration itself hands out no room.
     */
    @Test
    void aRegistrationHandsOutNoRoomAndTheRefillThenReachesTheWholeCeiling() {
        Bucket b = tokenBucket(1_600, Duration.ofMinutes(1), clock);
        b.reserve(1_000, clock.nanoTime(), clock.epochMillis());
        lend(b, 0);
        assertThat(b.laneLender().credit().tryTake(0, 100)).isTrue();
        clock.advance(Duration.ofMinutes(1)); // enough to refill to the cap of 1,500 and beyond
        b.laneLender().registered(100, clock.nanoTime());
        assertThat(room(b)).isEqualTo(1_500);
        assertThat(b.reserved()).isEqualTo(1_100);
        clock.advance(Duration.ofSeconds(3)); // 80 more at 1,600 a minute, up to the whole ceiling
        assertThat(room(b)).isEqualTo(1_580);
        clock.advance(Duration.ofMinutes(1));
        assertThat(room(b)).isEqualTo(1_600);
    }

    @Test
    void anEvictedBucketLendsNothingFromItsLevel() {
        Bucket b = tokenBucket(1_600, Duration.ofMinutes(1), clock);
        LaneLender lender = b.laneLender();
        b.markEvicted();
        lender.lend(0, clock.nanoTime());
        assertThat(roomLeftBesideTheLoans(b)).isEqualTo(1_600);
        assertThat(b.admittedTotal()).isZero();
    }
}
