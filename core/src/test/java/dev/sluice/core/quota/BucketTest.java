package dev.sluice.core.quota;

import static dev.sluice.core.quota.QuotaFixtures.bucketOf;
import static dev.sluice.core.quota.QuotaFixtures.learnedBucket;
import static dev.sluice.core.quota.QuotaFixtures.tokenBucket;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.sluice.config.Dimension;
import dev.sluice.core.FakeClock;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What every bucket does alike: guaranteed reserves, the reservations it holds, the admissions it counts. */
class BucketTest {

    private static final int SEARCH = 0;
    private static final int ANY_OTHER = -1;

    private final FakeClock clock = new FakeClock();

    /** 1,000 tokens a minute, of which tenant search is guaranteed 30 %. */
    private Bucket shared() {
        return bucketOf(
                LimitSpec.perWindow("tpm", Dimension.TOTAL_TOKENS, 1_000, Duration.ofMinutes(1)),
                clock,
                Guarantees.of(Map.of("search", 0.3)));
    }

    private long roomFor(Bucket b, int tenant) {
        return b.roomFor(tenant, clock.nanoTime(), clock.epochMillis());
    }

    private long reserve(Bucket b, long amount) {
        return b.reserve(amount, clock.nanoTime(), clock.epochMillis());
    }

    @Test
    void anUnusedGuaranteeIsRoomNoOtherTenantCanTake() {
        Bucket b = shared();
        assertThat(roomFor(b, ANY_OTHER)).isEqualTo(700);
        assertThat(roomFor(b, SEARCH)).isEqualTo(1_000);
    }

    @Test
    void aGuaranteedTenantSpendsItsOwnReserveFirst() {
        Bucket b = shared();
        assertThat(b.takeReserved(SEARCH, 200, clock.nanoTime(), clock.epochMillis()))
                .isEqualTo(200);
        reserve(b, 200);
        // the others' room is what it was: the call came out of the reserve
        assertThat(roomFor(b, ANY_OTHER)).isEqualTo(700);
        assertThat(roomFor(b, SEARCH)).isEqualTo(800);
    }

    @Test
    void onlyAGuaranteedTenantTakesFromAReserve() {
        Bucket b = shared();
        assertThat(b.takeReserved(ANY_OTHER, 200, clock.nanoTime(), clock.epochMillis()))
                .isZero();
        assertThat(tokenBucket(1_000, Duration.ofMinutes(1), clock)
                        .takeReserved(SEARCH, 200, clock.nanoTime(), clock.epochMillis()))
                .isZero();
    }

    @Test
    void aRefundGivesBackToTheReserveWhatCameFromIt() {
        Bucket b = shared();
        long fromReserve = b.takeReserved(SEARCH, 200, clock.nanoTime(), clock.epochMillis());
        long takenAt = reserve(b, 200);
        b.settle(200, 0, takenAt, SEARCH, fromReserve, clock.nanoTime(), clock.epochMillis());
        assertThat(roomFor(b, ANY_OTHER)).isEqualTo(700);
        assertThat(roomFor(b, SEARCH)).isEqualTo(1_000);
    }

    @Test
    void aReserveRefillsAtItsShareOfTheRate() {
        Bucket b = shared();
        long fromReserve = b.takeReserved(SEARCH, 300, clock.nanoTime(), clock.epochMillis());
        reserve(b, fromReserve);
        clock.advance(Duration.ofSeconds(12)); // 200 back: 60 of them to the reserve
        assertThat(roomFor(b, ANY_OTHER)).isEqualTo(840);
    }

    @Test
    void aCallTooLargeToFitBesideTheOtherReservesNeverFits() {
        Bucket b = shared();
        assertThat(b.nanosUntilRoomFor(ANY_OTHER, 701, clock.nanoTime(), clock.epochMillis()))
                .isEqualTo(Bucket.NEVER);
        assertThat(b.nanosUntilRoomFor(ANY_OTHER, 700, clock.nanoTime(), clock.epochMillis()))
                .isZero();
        assertThat(b.nanosUntilRoomFor(SEARCH, 1_000, clock.nanoTime(), clock.epochMillis()))
                .isZero();
    }

    /** A learned burst is a pace: a larger call waits for what the bucket holds beside the others' reserves. */
    @Test
    void aLearnedLimitAsksALargeCallForTheRoomBesideTheOtherReservesOnly() {
        LimitSpec spec = LimitSpec.builder("openai/k_1/gpt:tokens", Dimension.TOTAL_TOKENS, 1_000)
                .window(Duration.ofMinutes(1))
                .mirrorsProvider(true)
                .source(LimitSpec.Source.LEARNED)
                .build();
        Bucket learned = Limit.forScope(
                        spec, "openai", clock.nanoTime(), clock.epochMillis(), Guarantees.of(Map.of("search", 0.3)))
                .buckets()
                .iterator()
                .next();
        assertThat(learned.roomNeeded(ANY_OTHER, 5_000)).isEqualTo(700);
        assertThat(learned.roomNeeded(SEARCH, 5_000)).isEqualTo(1_000);
        assertThat(learned.roomNeeded(ANY_OTHER, 500)).isEqualTo(500);
        assertThat(shared().roomNeeded(ANY_OTHER, 5_000)).isEqualTo(5_000);
    }

    @Test
    void reservedIsWhatCallsHoldUntilTheySettle() {
        Bucket b = tokenBucket(1_000, Duration.ofMinutes(1), clock);
        long first = reserve(b, 100);
        reserve(b, 250);
        assertThat(b.reserved()).isEqualTo(350);
        b.settle(100, 40, first, clock.nanoTime(), clock.epochMillis());
        assertThat(b.reserved()).isEqualTo(250);
    }

    @Test
    void usageBeyondTheReservationIsTakenWhenItSettles() {
        Bucket b = tokenBucket(1_000, Duration.ofMinutes(1), clock);
        long takenAt = reserve(b, 100);
        b.settle(100, 300, takenAt, clock.nanoTime(), clock.epochMillis());
        assertThat(b.room(clock.nanoTime(), clock.epochMillis())).isEqualTo(700);
    }

    @Test
    void everyReservationCountsInTheRunningTotalOfAdmissionsAndSettlingTakesNothingOff() {
        Bucket b = tokenBucket(1_000, Duration.ofMinutes(1), clock);
        long takenAt = reserve(b, 100);
        reserve(b, 250);
        b.settle(100, 0, takenAt, clock.nanoTime(), clock.epochMillis());
        assertThat(b.admittedTotal()).isEqualTo(350);
    }

    @Test
    void aLearnedBucketTellsWhatHadBeenAdmittedByAnEarlierMoment() {
        Bucket b = learnedBucket(1_000, Duration.ofMinutes(1), 0, clock);
        long t0 = clock.nanoTime();
        reserve(b, 10);
        clock.advance(Duration.ofMillis(30));
        long t1 = clock.nanoTime();
        reserve(b, 20);
        clock.advance(Duration.ofMillis(30));
        reserve(b, 5);
        assertThat(b.admittedTotalAt(t0)).isZero();
        assertThat(b.admittedTotalAt(t0 + 1)).isEqualTo(10); // the first sample at or after it
        assertThat(b.admittedTotalAt(t1)).isEqualTo(10);
        assertThat(b.admittedTotalAt(clock.nanoTime() + 1)).isEqualTo(35);
    }

    /** Samples are 20 ms apart at most: a moment between two reads as the later, erring towards less admitted since. */
    @Test
    void admissionsAreSampledAtMostEveryTwentyMilliseconds() {
        Bucket b = learnedBucket(1_000, Duration.ofMinutes(1), 0, clock);
        long t0 = clock.nanoTime();
        reserve(b, 10);
        clock.advance(Duration.ofMillis(5));
        reserve(b, 10);
        assertThat(b.admittedTotalAt(t0 + 1)).isEqualTo(20);
    }

    @Test
    void aConfiguredBucketKeepsNoSamplesAndAnswersWithTheTotalNow() {
        Bucket b = tokenBucket(1_000, Duration.ofMinutes(1), clock);
        long t0 = clock.nanoTime();
        reserve(b, 10);
        clock.advance(Duration.ofMillis(30));
        reserve(b, 20);
        assertThat(b.admittedTotalAt(t0)).isEqualTo(30);
    }

    /**
     * The provider counted every call once the last one out ends: when each call of the spell
     * answered with a figure, the least of them is what is left at least, so the room is raised to it.
     */
    @Test
    void theLastCallToSettleRaisesTheRoomToTheLeastFigureWhenEveryCallGaveOne() {
        Bucket mirror = learnedBucket(1_000, Duration.ofMinutes(1), 0, clock);
        long first = reserve(mirror, 300);
        // counted before the second call was sent: taking that call off would count it twice, as it answered too
        mirror.figureWhileBusy(700, mirror.admittedTotal(), clock.nanoTime(), 300);
        long second = reserve(mirror, 300);
        mirror.figureWhileBusy(800, mirror.admittedTotal(), clock.nanoTime(), 300);
        mirror.settle(300, 300, first, clock.nanoTime(), clock.epochMillis());
        assertThat(mirror.roomAsCounted(clock.nanoTime(), clock.epochMillis())).isEqualTo(400);
        mirror.settle(300, 300, second, clock.nanoTime(), clock.epochMillis());
        assertThat(mirror.roomAsCounted(clock.nanoTime(), clock.epochMillis())).isEqualTo(700);
    }

    /**
     * A call of the spell gave no figure (an answer without headers): the figures say nothing of
     * it, so the least one is taken as it stands when the spell ends, the refill since added and
     * what was admitted after it was counted taken off.
     */
    @Test
    void whenACallGaveNoFigureTheLeastIsTakenAsItStandsWhenTheSpellEnds() {
        Bucket mirror = learnedBucket(1_000, Duration.ofMinutes(1), 0, clock);
        long first = reserve(mirror, 300);
        mirror.figureWhileBusy(700, mirror.admittedTotal(), clock.nanoTime(), 300);
        long second = reserve(mirror, 300); // admitted after the figure was counted; it gives none
        mirror.lowerRoomTo(100, clock.nanoTime(), clock.epochMillis());
        clock.advance(Duration.ofSeconds(6)); // 100 refilled since the figure
        mirror.settle(300, 300, first, clock.nanoTime(), clock.epochMillis());
        mirror.settle(300, 300, second, clock.nanoTime(), clock.epochMillis());
        // 700 + 100 refilled - 300 admitted since: 500, not the 700 said before the second call went
        assertThat(mirror.roomAsCounted(clock.nanoTime(), clock.epochMillis())).isCloseTo(500L, within(1L));
    }

    @Test
    void aBusySpellEndsWithItsRaiseAndTheNextStartsAfresh() {
        Bucket mirror = learnedBucket(1_000, Duration.ofMinutes(1), 0, clock);
        reserve(mirror, 600);
        mirror.figureWhileBusy(700, mirror.admittedTotal(), clock.nanoTime(), 600);
        mirror.endBusySpell(clock.nanoTime(), clock.epochMillis());
        assertThat(mirror.roomAsCounted(clock.nanoTime(), clock.epochMillis())).isEqualTo(700);
        mirror.lowerRoomTo(100, clock.nanoTime(), clock.epochMillis());
        mirror.endBusySpell(clock.nanoTime(), clock.epochMillis()); // nothing said since: nothing to raise to
        assertThat(mirror.roomAsCounted(clock.nanoTime(), clock.epochMillis())).isEqualTo(100);
    }

    @Test
    void onlyTheWaiterHoldingTheClaimCanDropIt() {
        Bucket b = tokenBucket(1_000, Duration.ofMinutes(1), clock);
        Object first = new Object();
        Object second = new Object();
        b.claim(first);
        b.unclaim(second);
        assertThat(b.claimant()).isSameAs(first);
        b.unclaim(first);
        assertThat(b.claimant()).isNull();
    }

    @Test
    void aLocalBudgetsRoomIsItsOwnRoom() {
        Bucket b = shared();
        assertThat(b.fleetRoom()).isNull(); // nothing beyond its own room to add
        assertThat(roomFor(b, ANY_OTHER)).isEqualTo(700);
    }
}
