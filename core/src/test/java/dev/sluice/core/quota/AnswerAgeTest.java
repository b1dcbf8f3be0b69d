package dev.sluice.core.quota;

import static dev.sluice.core.quota.QuotaFixtures.bucketOf;
import static dev.sluice.core.quota.QuotaFixtures.learnedBucket;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.Algorithm;
import dev.sluice.config.Dimension;
import dev.sluice.core.FakeClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** {@link AnswerAge} directly; {@code dev.sluice.core.StaleAnswerTest} runs it through the governor. */
class AnswerAgeTest {

    private final FakeClock clock = new FakeClock();
    /** 6,000 a minute: 100 a second. */
    private final Bucket budget = learnedBucket(6_000, Duration.ofMinutes(1), 0, clock);

    /** The answered call: reserved 100 at the start. */
    private final long admittedAt = clock.nanoTime();

    private final long takenAt = budget.reserve(100, clock.nanoTime(), clock.epochMillis());
    private final long mark = budget.admittedTotal();

    /** The answered call's age, its count assumed at its admission. */
    private AnswerAge answered(long ageNanos, boolean countTold, int bucketsSettled) {
        return new AnswerAge(
                ageNanos,
                admittedAt,
                countTold,
                new Bucket[] {budget},
                new long[] {mark},
                new long[] {100},
                bucketsSettled);
    }

    private long sinceAdmission() {
        return clock.nanoTime() - admittedAt;
    }

    @Test
    void anAnswerReadAsCurrentIsItsFigure() {
        assertThat(AnswerAge.CURRENT.remainingNow(budget, 500, 0)).isEqualTo(500);
        assertThat(AnswerAge.CURRENT.lastInFlight(budget)).isFalse();
    }

    @Test
    void theFigureGainsWhatTheBudgetRefilledSinceTheCallWasCounted() {
        clock.advance(Duration.ofSeconds(2));
        assertThat(answered(sinceAdmission(), false, 0).remainingNow(budget, 500, 0))
                .isEqualTo(700);
    }

    @Test
    void theRefillOthersTakeIsNotAdded() {
        clock.advance(Duration.ofSeconds(2));
        assertThat(answered(sinceAdmission(), false, 0).remainingNow(budget, 500, 0.5))
                .isEqualTo(600);
    }

    @Test
    void theRefillNeverLiftsAFigurePastTheCapacity() {
        clock.advance(Duration.ofSeconds(10));
        AnswerAge age = answered(sinceAdmission(), false, 0);
        assertThat(age.remainingNow(budget, 5_900, 0)).isEqualTo(6_000);
        assertThat(age.remainingNow(budget, 7_000, 0)).isEqualTo(7_000); // above it already: as said
    }

    @Test
    void aWindowedBudgetGainsNothingWithAge() {
        Bucket window = bucketOf(
                LimitSpec.builder("rpm", Dimension.REQUESTS, 6_000)
                        .window(Duration.ofMinutes(1))
                        .algorithm(Algorithm.FIXED_WINDOW)
                        .build(),
                clock);
        window.reserve(1, clock.nanoTime(), clock.epochMillis());
        AnswerAge age = new AnswerAge(
                10_000_000_000L, admittedAt, false, new Bucket[] {window}, new long[] {1}, new long[] {1}, 0);
        assertThat(age.remainingNow(window, 500, 0)).isEqualTo(500);
    }

    @Test
    void callsAdmittedAfterTheAnsweredOneAndStillOutAreTakenOff() {
        clock.advance(Duration.ofMillis(30));
        budget.reserve(300, clock.nanoTime(), clock.epochMillis());
        AnswerAge age = answered(sinceAdmission(), false, 0);
        // 3 refilled in 30 ms, 300 sent since
        assertThat(age.remainingNow(budget, 500, 0)).isEqualTo(203);
        assertThat(age.ambiguouslyTakenOff(budget)).isEqualTo(300);
    }

    /** Their own answers already told the room: taking them off again would count them twice. */
    @Test
    void callsAdmittedAfterTheAnsweredOneThatEndedAreNotTakenOff() {
        clock.advance(Duration.ofMillis(30));
        long later = budget.reserve(300, clock.nanoTime(), clock.epochMillis());
        budget.settle(300, 300, later, clock.nanoTime(), clock.epochMillis());
        assertThat(answered(sinceAdmission(), false, 0).remainingNow(budget, 500, 0))
                .isEqualTo(503);
    }

    /** A burst admitted at once reaches the provider in any order: its calls may be in the figure already. */
    @Test
    void callsAdmittedWithTheAnsweredOneAreNotTakenOff() {
        budget.reserve(300, clock.nanoTime(), clock.epochMillis());
        assertThat(answered(0, false, 0).remainingNow(budget, 500, 0)).isEqualTo(500);
    }

    @Test
    void aFigureIsNeverReadBelowOneWindowsDebt() {
        clock.advance(Duration.ofMillis(30));
        budget.reserve(9_000, clock.nanoTime(), clock.epochMillis());
        assertThat(answered(0, false, 0).remainingNow(budget, 0, 0)).isEqualTo(-6_000);
    }

    @Test
    void theFigureOfABudgetTheCallDidNotGoThroughIsReadAsItIs() {
        Bucket other = learnedBucket(6_000, Duration.ofMinutes(1), 0, clock);
        clock.advance(Duration.ofSeconds(2));
        other.reserve(300, clock.nanoTime(), clock.epochMillis());
        AnswerAge age = answered(sinceAdmission(), false, 0);
        assertThat(age.remainingNow(other, 500, 0)).isEqualTo(500);
        assertThat(age.lastInFlight(other)).isFalse();
    }

    /** Calls admitted after the provider said it counted the answered one arrived after it: no doubt. */
    @Test
    void nothingTakenOffIsAmbiguousWhenTheProviderToldWhenItCounted() {
        clock.advance(Duration.ofMillis(30));
        budget.reserve(300, clock.nanoTime(), clock.epochMillis());
        assertThat(answered(sinceAdmission(), true, 0).ambiguouslyTakenOff(budget))
                .isZero();
    }

    @Test
    void theAnsweredCallIsTheLastOutOnlyWhenNothingElseIsReserved() {
        assertThat(answered(0, false, 0).lastInFlight(budget)).isTrue();
        budget.reserve(300, clock.nanoTime(), clock.epochMillis());
        assertThat(answered(0, false, 0).lastInFlight(budget)).isFalse();
    }

    @Test
    void anAnsweredCallAlreadySettledIsTheLastOutOnlyWhileNothingIsReserved() {
        budget.settle(100, 100, takenAt, clock.nanoTime(), clock.epochMillis());
        assertThat(answered(0, false, 1).lastInFlight(budget)).isTrue();
        budget.reserve(100, clock.nanoTime(), clock.epochMillis()); // another call, as large, is out
        assertThat(answered(0, false, 1).lastInFlight(budget)).isFalse();
    }

    /** A call whose tokens could not be read is not in a token budget's count. */
    @Test
    void aCallThatChargedTheBudgetNothingIsNeverTheLastOut() {
        AnswerAge nothingCharged =
                new AnswerAge(0, admittedAt, false, new Bucket[] {budget}, new long[] {mark}, new long[] {0}, 0);
        budget.settle(100, 100, takenAt, clock.nanoTime(), clock.epochMillis());
        assertThat(nothingCharged.lastInFlight(budget)).isFalse();
    }

    /** What the figure can have counted: the answered call's mark, or later admissions within the reorder window. */
    @Test
    void theFigureCountedWhatWasAdmittedUpToTheAnsweredCall() {
        budget.reserve(300, clock.nanoTime(), clock.epochMillis()); // with the answered one: maybe in the figure
        assertThat(answered(0, false, 0).countedMark(budget)).isEqualTo(400);
        clock.advance(Duration.ofMillis(30));
        budget.reserve(50, clock.nanoTime(), clock.epochMillis()); // later: not in it
        assertThat(answered(0, false, 0).countedMark(budget)).isEqualTo(400);
        assertThat(AnswerAge.CURRENT.countedMark(budget)).isEqualTo(450);
    }

    @Test
    void theAnsweredCallsAmountIsWhatItReservedInTheBudget() {
        assertThat(answered(0, false, 0).answeredAmount(budget)).isEqualTo(100);
        assertThat(answered(0, false, 0).answeredAmount(learnedBucket(6_000, Duration.ofMinutes(1), 0, clock)))
                .isZero();
    }

    @Test
    void theFigureWasCountedItsAgeBeforeItWasRead() {
        assertThat(answered(2 * 1_000_000_000L, false, 0).countedAt(clock.nanoTime()))
                .isEqualTo(clock.nanoTime() - 2_000_000_000L);
    }
}
