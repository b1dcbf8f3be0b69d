package dev.sluice.core.quota;

import static dev.sluice.core.quota.QuotaFixtures.bucketOf;
import static dev.sluice.core.quota.QuotaFixtures.learnedBucket;
import static dev.sluice.core.quota.QuotaFixtures.tokenBucket;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.Dimension;
import dev.sluice.core.FakeClock;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TokenBucketTest {

    private final FakeClock clock = new FakeClock();

    private long room(Bucket b) {
        return b.room(clock.nanoTime(), clock.epochMillis());
    }

    private long reserve(Bucket b, long amount) {
        return b.reserve(amount, clock.nanoTime(), clock.epochMillis());
    }

    private void lend(Bucket b) {
        b.laneLender().lend(0, clock.nanoTime());
    }

    /** A call admitted by the lane, then registered by the lock holder; returns what its refund hands back. */
    private long laneAdmission(Bucket b, long amount) {
        lend(b);
        assertThat(b.laneLender().credit().tryTake(0, amount)).isTrue();
        long loanMoment = b.laneLender().credit().lentMoment(0);
        b.laneLender().registered(amount, clock.nanoTime());
        return loanMoment;
    }

    @Test
    void roomComesBackSmoothlyWithinTheWindow() {
        Bucket b = tokenBucket(600, Duration.ofMinutes(1), clock);
        reserve(b, 600);
        clock.advance(Duration.ofSeconds(15));
        assertThat(room(b)).isEqualTo(150);
        clock.advance(Duration.ofSeconds(45));
        assertThat(room(b)).isEqualTo(600);
    }

    @Test
    void aBurstBelowTheCapacityIsTheMostTheBucketHolds() {
        Bucket b = bucketOf(
                LimitSpec.builder("tpm", Dimension.TOTAL_TOKENS, 600)
                        .window(Duration.ofMinutes(1))
                        .burst(100)
                        .build(),
                clock);
        clock.advance(Duration.ofHours(1));
        assertThat(room(b)).isEqualTo(100);
        assertThat(b.nanosUntilRoom(101, clock.nanoTime(), clock.epochMillis())).isEqualTo(Bucket.NEVER);
        reserve(b, 100);
        clock.advance(Duration.ofSeconds(5)); // still 10 a second: the capacity sets the rate
        assertThat(room(b)).isEqualTo(50);
        clock.advance(Duration.ofHours(1));
        assertThat(room(b)).isEqualTo(100);
    }

    /** Room as counted reads like the provider's own remaining: the transit allowance is not a debt. */
    @Test
    void aMirrorsRoomAsCountedAddsBackWhatItKeepsForCallsInTransit() {
        Bucket mirror = bucketOf(
                LimitSpec.builder("provider-tpm", Dimension.TOTAL_TOKENS, 600)
                        .window(Duration.ofMinutes(1))
                        .mirrorsProvider(true)
                        .build(),
                clock);
        reserve(mirror, 100); // 10 a second: 2.5 kept back for 250 ms of transit
        assertThat(room(mirror)).isEqualTo(497);
        assertThat(mirror.roomAsCounted(clock.nanoTime(), clock.epochMillis())).isEqualTo(500);
    }

    @Test
    void aMirrorLoweredToAFigureReadsThatFigureBackAsCounted() {
        Bucket mirror = bucketOf(
                LimitSpec.builder("provider-tpm", Dimension.TOTAL_TOKENS, 600)
                        .window(Duration.ofMinutes(1))
                        .mirrorsProvider(true)
                        .build(),
                clock);
        mirror.lowerRoomTo(300, clock.nanoTime(), clock.epochMillis());
        assertThat(mirror.roomAsCounted(clock.nanoTime(), clock.epochMillis())).isEqualTo(300);
        assertThat(room(mirror)).isEqualTo(297);
    }

    @Test
    void refillStopsAtTheCeilingLessWhatIsLent() {
        Bucket b = tokenBucket(1_600, Duration.ofMinutes(1), clock);
        lend(b); // a sixteenth of the burst to the stripe: 100
        clock.advance(Duration.ofMinutes(1));
        // the level plus the loan stay one bucket of 1,600: the level refilled only to 1,500
        assertThat(b.roomOnFastPath(-1, clock.nanoTime(), clock.epochMillis())).isEqualTo(1_500);
        assertThat(b.laneLender().credit().tryTake(0, 100)).isTrue();
        assertThat(room(b)).isEqualTo(1_500);
    }

    @Test
    void everyAnswerToHowMuchRoomTakesTheUnusedLoansBackFirst() {
        Bucket b = tokenBucket(1_600, Duration.ofMinutes(1), clock);
        lend(b);
        assertThat(b.roomOnFastPath(-1, clock.nanoTime(), clock.epochMillis())).isEqualTo(1_500);
        assertThat(b.laneLender().credit().tryTake(0, 40)).isTrue();
        assertThat(room(b)).isEqualTo(1_560);
        assertThat(b.laneLender().credit().tryTake(0, 1)).isFalse(); // taken back: the lane has nothing left
        assertThat(b.nanosUntilRoom(1_560, clock.nanoTime(), clock.epochMillis()))
                .isZero();
    }

    @Test
    void aStripeIsLentAtMostASixteenthOfTheBurstAndToppedUpToIt() {
        Bucket b = tokenBucket(1_600, Duration.ofMinutes(1), clock);
        lend(b);
        lend(b);
        assertThat(b.laneLender().credit().tryTake(0, 101)).isFalse();
        assertThat(b.laneLender().credit().tryTake(0, 30)).isTrue();
        lend(b); // tops the stripe up by the 30 the lane used
        assertThat(b.laneLender().credit().tryTake(0, 100)).isTrue();
        assertThat(b.roomOnFastPath(-1, clock.nanoTime(), clock.epochMillis())).isEqualTo(1_470);
    }

    @Test
    void laneAdmissionsCountAsReservedBeforeAndAfterTheyAreRegistered() {
        Bucket b = tokenBucket(1_600, Duration.ofMinutes(1), clock);
        lend(b);
        b.laneLender().credit().tryTake(0, 40);
        assertThat(b.reserved()).isEqualTo(40);
        room(b); // takes back the 60 unused
        assertThat(b.reserved()).isEqualTo(40);
        b.laneLender().registered(40, clock.nanoTime());
        assertThat(b.reserved()).isEqualTo(40);
        b.settle(40, 40, b.laneLender().credit().lentMoment(0), clock.nanoTime(), clock.epochMillis());
        assertThat(b.reserved()).isZero();
    }

    /** The lane's calls count as admitted when the room they use is lent, and what comes back unused is not. */
    @Test
    void laneAdmissionsCountAsAdmittedWhenTheirRoomIsLent() {
        Bucket b = tokenBucket(1_600, Duration.ofMinutes(1), clock);
        lend(b);
        assertThat(b.admittedTotal()).isEqualTo(100);
        b.laneLender().credit().tryTake(0, 40);
        room(b);
        assertThat(b.admittedTotal()).isEqualTo(40);
    }

    @Test
    void aRefundOfALaneAdmissionGivesBackOnlyWhatTheRefillHasNotMadeUp() {
        Bucket b = tokenBucket(1_600, Duration.ofMinutes(1), clock);
        long loanMoment = laneAdmission(b, 100);
        clock.advance(Duration.ofSeconds(10)); // full again
        reserve(b, 1_000);
        b.settle(100, 0, loanMoment, clock.nanoTime(), clock.epochMillis()); // the lane's call used nothing
        assertThat(room(b)).isEqualTo(600);
    }

    @Test
    void aRefundOfALaneAdmissionWhileTheBucketStayedLowGivesBackAllItDidNotUse() {
        Bucket b = tokenBucket(1_600, Duration.ofMinutes(1), clock);
        clock.advance(Duration.ofSeconds(1)); // seen full
        reserve(b, 1_000);
        long loanMoment = laneAdmission(b, 100);
        clock.advance(Duration.ofSeconds(3)); // 80 back: 580, far from full since the loan
        b.settle(100, 0, loanMoment, clock.nanoTime(), clock.epochMillis());
        assertThat(room(b)).isEqualTo(680);
    }

    @Test
    void aConfiguredLimitIsOwedInFull() {
        Bucket b = tokenBucket(600, Duration.ofMinutes(1), clock);
        b.takeMore(5_000, clock.nanoTime(), clock.epochMillis());
        assertThat(room(b)).isEqualTo(-4_400);
    }

    /** A learned figure paces, it never locks out: its debt stops at one window's capacity. */
    @Test
    void aLearnedLimitsDebtStopsAtOneWindowsCapacity() {
        Bucket b = learnedBucket(600, Duration.ofMinutes(1), 0, clock);
        reserve(b, 600);
        b.takeMore(5_000, clock.nanoTime(), clock.epochMillis());
        assertThat(room(b)).isEqualTo(-600);
        clock.advance(Duration.ofMinutes(2));
        assertThat(room(b)).isEqualTo(600);
    }

    @Test
    void aDebtKeepsItsTimeWhenTheCapacityChanges() {
        Bucket b = tokenBucket(600, Duration.ofMinutes(1), clock);
        reserve(b, 600);
        b.takeMore(300, clock.nanoTime(), clock.epochMillis()); // 30 s of refill owed at 10 a second
        b.limit().setCapacity(1_200, clock.nanoTime(), clock.epochMillis());
        clock.advance(Duration.ofSeconds(30));
        assertThat(room(b)).isZero();
        clock.advance(Duration.ofSeconds(1));
        assertThat(room(b)).isEqualTo(20);
    }

    @Test
    void aLowerCapacityLowersAFullBucketToIt() {
        Bucket b = tokenBucket(600, Duration.ofMinutes(1), clock);
        b.limit().setCapacity(300, clock.nanoTime(), clock.epochMillis());
        assertThat(room(b)).isEqualTo(300);
    }

    @Test
    void aHigherFigureThanTheRoomNeverRaisesItWhenLowered() {
        Bucket b = tokenBucket(600, Duration.ofMinutes(1), clock);
        reserve(b, 500);
        b.lowerRoomTo(400, clock.nanoTime(), clock.epochMillis());
        assertThat(room(b)).isEqualTo(100);
    }

    /**
     * A figure given once every call was counted raises the room to it; the calls reserved before
     * it were counted in it as they really used, so refunds of theirs give nothing back on top.
     */
    @Test
    void aFigureRaisesTheRoomAndRefundsOfCallsReservedBeforeItGiveNothingBack() {
        Bucket mirror = learnedBucket(600, Duration.ofMinutes(1), 0, clock);
        long takenAt = reserve(mirror, 400);
        mirror.raiseRoomTo(500, clock.nanoTime(), clock.epochMillis());
        assertThat(mirror.roomAsCounted(clock.nanoTime(), clock.epochMillis())).isEqualTo(500);
        mirror.settle(400, 100, takenAt, clock.nanoTime(), clock.epochMillis());
        assertThat(mirror.roomAsCounted(clock.nanoTime(), clock.epochMillis())).isEqualTo(500);
    }

    @Test
    void aFigureBelowTheRoomNeverLowersItWhenRaised() {
        Bucket mirror = learnedBucket(600, Duration.ofMinutes(1), 0, clock);
        reserve(mirror, 100);
        mirror.raiseRoomTo(200, clock.nanoTime(), clock.epochMillis());
        assertThat(mirror.roomAsCounted(clock.nanoTime(), clock.epochMillis())).isEqualTo(500);
    }

    @Test
    void whatOthersTakeOfTheRefillIsNotRefilled() {
        Bucket b = tokenBucket(600, Duration.ofMinutes(1), clock);
        reserve(b, 600);
        b.setExternalShare(0.5, clock.nanoTime(), clock.epochMillis());
        clock.advance(Duration.ofSeconds(30));
        assertThat(room(b)).isEqualTo(150);
    }

    @Test
    void sluiceAlwaysKeepsATenthOfTheRefill() {
        Bucket b = tokenBucket(600, Duration.ofMinutes(1), clock);
        reserve(b, 600);
        b.setExternalShare(1.0, clock.nanoTime(), clock.epochMillis());
        clock.advance(Duration.ofSeconds(30));
        assertThat(room(b)).isEqualTo(30);
    }

    @Test
    void theRefillBeforeANewShareIsAtTheShareThatHeld() {
        Bucket b = tokenBucket(600, Duration.ofMinutes(1), clock);
        reserve(b, 600);
        clock.advance(Duration.ofSeconds(10)); // 100 at the whole rate
        b.setExternalShare(0.5, clock.nanoTime(), clock.epochMillis());
        clock.advance(Duration.ofSeconds(10)); // 50 at half
        assertThat(room(b)).isEqualTo(150);
    }

    @Test
    void aBucketHoldingGuaranteedReservesLendsNothingToTheLane() {
        Bucket b = bucketOf(
                LimitSpec.perWindow("tpm", Dimension.TOTAL_TOKENS, 1_600, Duration.ofMinutes(1)),
                clock,
                Guarantees.of(Map.of("search", 0.25)));
        assertThat(b.laneLender()).isNull();
        assertThat(room(b)).isEqualTo(1_600);
    }

    @Test
    void anEvictedBucketTakesBackWhatItLentAndLendsNoMore() {
        Bucket b = tokenBucket(1_600, Duration.ofMinutes(1), clock);
        lend(b);
        LaneCredit credit = b.laneLender().credit();
        b.markEvicted();
        assertThat(credit.tryTake(0, 1)).isFalse();
        assertThat(b.laneLender().credit()).isNull();
    }

    @Test
    void theWaitForADemandIsTheTimeTheRefillTakesToBringIt() {
        Bucket b = tokenBucket(600, Duration.ofMinutes(1), clock);
        reserve(b, 550);
        assertThat(b.nanosUntilRoom(50, clock.nanoTime(), clock.epochMillis())).isZero();
        assertThat(b.nanosUntilRoom(150, clock.nanoTime(), clock.epochMillis())).isEqualTo(10_000_000_000L);
    }
}
