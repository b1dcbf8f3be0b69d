package dev.sluice.core.quota;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.sluice.config.Dimension;
import dev.sluice.core.FakeClock;
import dev.sluice.core.state.SavedState;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ProviderScopeTest {

    private static final long MINUTE = 60_000;
    private static final long SECOND = 1_000_000_000L;
    private static final long PROBE_TIMEOUT = 30 * SECOND;

    /** What a call whose charges do not matter to the test charges the provider. */
    private static final long[] NO_CHARGES = new long[Dimension.values().length];

    private final FakeClock clock = new FakeClock();
    private final ProviderScope scope = new ProviderScope("openai|k_1|gpt", "openai/k_1/gpt", Guarantees.none());

    private void learn(Dimension dimension, long limit, long remaining) {
        learn(dimension, limit, remaining, Long.MAX_VALUE);
    }

    private void learn(Dimension dimension, long limit, long remaining, long ceiling) {
        scope.learn(
                dimension.name().toLowerCase(),
                dimension,
                limit,
                remaining,
                MINUTE,
                ceiling,
                clock.nanoTime(),
                clock.epochMillis());
    }

    private Bucket only() {
        assertThat(scope.learnedBuckets()).hasSize(1);
        return scope.learnedBuckets()[0];
    }

    private long roomAsCounted(Bucket b) {
        return b.roomAsCounted(clock.nanoTime(), clock.epochMillis());
    }

    private long now() {
        return clock.nanoTime();
    }

    @Test
    void anAnnouncedBudgetBecomesAMirrorOfItsCapacityOverItsWindow() {
        learn(Dimension.TOTAL_TOKENS, 10_000, 9_000);
        Limit l = only().limit();
        assertThat(l.capacity()).isEqualTo(10_000);
        assertThat(l.windowMillis()).isEqualTo(MINUTE);
        assertThat(l.mirrorsProvider()).isTrue();
        assertThat(l.spec().source()).isEqualTo(LimitSpec.Source.LEARNED);
        assertThat(l.capacityAnnounced()).isTrue();
        assertThat(l.id()).isEqualTo("openai/k_1/gpt:total_tokens");
        assertThat(only().scopeName()).isEqualTo("openai/k_1/gpt");
    }

    @Test
    void whatRemainsAccordingToTheProviderIsTheRoom() {
        learn(Dimension.TOTAL_TOKENS, 10_000, 9_000);
        assertThat(roomAsCounted(only())).isEqualTo(9_000);
        learn(Dimension.TOTAL_TOKENS, 10_000, 4_000);
        assertThat(roomAsCounted(only())).isEqualTo(4_000);
    }

    @Test
    void aBurstIsTheMostSeenLeftAtOncePlusTheCallCounted() {
        learn(Dimension.REQUESTS, 1_000, 100);
        assertThat(only().limit().burst()).isEqualTo(101);
        learn(Dimension.REQUESTS, 1_000, 500);
        assertThat(only().limit().burst()).isEqualTo(501);
        learn(Dimension.REQUESTS, 1_000, 50);
        assertThat(only().limit().burst()).isEqualTo(501);
        learn(Dimension.REQUESTS, 1_000, 999);
        assertThat(only().limit().burst()).isEqualTo(1_000);
        // seen whole once, it stays the whole capacity as that grows
        learn(Dimension.REQUESTS, 2_000, 10);
        assertThat(only().limit().burst()).isEqualTo(2_000);
    }

    @Test
    void aCapacityIsNeverAboveTheCeilingGiven() {
        learn(Dimension.TOTAL_TOKENS, 10_000, 9_000, 5_000);
        assertThat(only().limit().capacity()).isEqualTo(5_000);
    }

    @Test
    void anAnnouncedCapacityFollowsTheProviderEitherWay() {
        learn(Dimension.TOTAL_TOKENS, 10_000, 9_000);
        learn(Dimension.TOTAL_TOKENS, 8_000, 7_000);
        assertThat(only().limit().capacity()).isEqualTo(8_000);
        learn(Dimension.TOTAL_TOKENS, 12_000, 7_000);
        assertThat(only().limit().capacity()).isEqualTo(12_000);
    }

    /** Azure announces only what remains: the largest remaining seen stands for the capacity. */
    @Test
    void anUnannouncedCapacityIsTheLargestRemainingSeen() {
        learn(Dimension.TOTAL_TOKENS, -1, 300);
        assertThat(only().limit().capacity()).isEqualTo(300);
        assertThat(only().limit().capacityAnnounced()).isFalse();
        learn(Dimension.TOTAL_TOKENS, -1, 500);
        assertThat(only().limit().capacity()).isEqualTo(500);
        learn(Dimension.TOTAL_TOKENS, -1, 200);
        assertThat(only().limit().capacity()).isEqualTo(500);
    }

    @Test
    void nothingLeftOfABudgetOfUnknownSizeSaysNothingOfIt() {
        learn(Dimension.TOTAL_TOKENS, -1, 0);
        assertThat(scope.learnedBuckets()).isEmpty();
    }

    @Test
    void figuresWithoutAWindowOrAnyNumberAreIgnored() {
        scope.learn("t", Dimension.TOTAL_TOKENS, 1_000, 900, 0, Long.MAX_VALUE, now(), clock.epochMillis());
        learn(Dimension.TOTAL_TOKENS, 0, -1);
        assertThat(scope.learnedBuckets()).isEmpty();
    }

    @Test
    void eachDimensionAndWindowIsABudgetOfItsOwn() {
        learn(Dimension.REQUESTS, 1_000, 900);
        learn(Dimension.TOTAL_TOKENS, 10_000, 9_000);
        scope.learn("daily", Dimension.REQUESTS, 5_000, 10, 86_400_000, Long.MAX_VALUE, now(), clock.epochMillis());
        learn(Dimension.REQUESTS, 1_000, 800);
        assertThat(scope.learnedBuckets()).hasSize(3);
    }

    @Test
    void theLastFiguresAreKeptForStatusViews() {
        learn(Dimension.TOTAL_TOKENS, 10_000, 9_000);
        assertThat(scope.reportedLimit(only())).isEqualTo(10_000);
        assertThat(scope.reportedRemaining(only())).isEqualTo(9_000);
        learn(Dimension.TOTAL_TOKENS, -1, 8_000);
        assertThat(scope.reportedLimit(only())).isEqualTo(-1);
        assertThat(scope.reportedRemaining(only())).isEqualTo(8_000);
    }

    /**
     * Once the last call out is answered the provider has counted every call: when each gave a
     * figure, what is left is at least the least of them, whatever Sluice took off its own view.
     */
    @Test
    void theAnswerOfTheLastCallOutRaisesTheRoomToTheLeastFigureWhenEveryCallGaveOne() {
        learn(Dimension.TOTAL_TOKENS, 6_000, 6_000);
        Bucket b = only();
        AnswerAge last = admit(b, 1_000); // the call whose answer comes last
        AnswerAge other = admit(b, 1_000);
        learn(b, 1_200, other); // the other call's answer while the first is out
        b.settle(1_000, 2_000, 0, now(), clock.epochMillis()); // it used twice what it reserved
        assertThat(roomAsCounted(b)).isEqualTo(200);
        learn(b, 1_100, last);
        assertThat(roomAsCounted(b)).isEqualTo(1_100);
    }

    /** A call admitted through {@code b} now: what its answer's age knows of it. */
    private AnswerAge admit(Bucket b, long amount) {
        long admitted = now();
        b.reserve(amount, now(), clock.epochMillis());
        return new AnswerAge(
                0, admitted, false, new Bucket[] {b}, new long[] {b.admittedTotal()}, new long[] {amount}, 0);
    }

    private void learn(Bucket b, long remaining, AnswerAge age) {
        scope.learn(
                b.limit().id().substring("openai/k_1/gpt:".length()),
                Dimension.TOTAL_TOKENS,
                6_000,
                remaining,
                MINUTE,
                Long.MAX_VALUE,
                Long.MAX_VALUE, // no configured limit mirrors it: the burst is what the answers show
                age,
                now(),
                clock.epochMillis());
    }

    @Test
    void aPauseHoldsEveryCallUntilItEndsAndTheLongestWins() {
        scope.pauseUntil(now() + 5 * SECOND);
        scope.pauseUntil(now() + 2 * SECOND);
        assertThat(scope.isPaused(now())).isTrue();
        assertThat(scope.nanosUntilOpen(now(), PROBE_TIMEOUT)).isEqualTo(5 * SECOND);
        assertThat(scope.pausedUntilNanos()).isEqualTo(now() + 5 * SECOND);
        assertThat(scope.openToLane()).isFalse();
    }

    @Test
    void afterAPauseOneProbeGoesFirstAndTheOthersWaitForItsAnswer() {
        scope.pauseUntil(now() + 5 * SECOND);
        clock.advance(Duration.ofSeconds(5));
        assertThat(scope.nanosUntilOpen(now(), PROBE_TIMEOUT)).isZero();
        assertThat(scope.admitted(now())).isTrue();
        assertThat(scope.nanosUntilOpen(now(), PROBE_TIMEOUT)).isEqualTo(Bucket.ON_RELEASE);
        assertThat(scope.admitted(now())).isFalse();
        scope.probeAnswered(true);
        assertThat(scope.nanosUntilOpen(now(), PROBE_TIMEOUT)).isZero();
        assertThat(scope.admitted(now())).isFalse();
        assertThat(scope.openToLane()).isTrue();
    }

    @Test
    void aRefusedProbeLeavesTheNextCallToProbeAgain() {
        scope.pauseUntil(now() + SECOND);
        clock.advance(Duration.ofSeconds(1));
        scope.admitted(now());
        scope.probeAnswered(false);
        assertThat(scope.openToLane()).isFalse();
        assertThat(scope.nanosUntilOpen(now(), PROBE_TIMEOUT)).isZero();
        assertThat(scope.admitted(now())).isTrue();
    }

    @Test
    void aProbeThatNeverReportsBackIsReplacedAfterTheTimeout() {
        scope.pauseUntil(now() + SECOND);
        clock.advance(Duration.ofSeconds(1));
        scope.admitted(now());
        clock.advance(Duration.ofSeconds(29));
        assertThat(scope.nanosUntilOpen(now(), PROBE_TIMEOUT)).isEqualTo(Bucket.ON_RELEASE);
        clock.advance(Duration.ofSeconds(1));
        assertThat(scope.nanosUntilOpen(now(), PROBE_TIMEOUT)).isZero();
        assertThat(scope.admitted(now())).isTrue();
    }

    @Test
    void anAbandonedProbeLetsAnotherCallProbe() {
        scope.pauseUntil(now() + SECOND);
        clock.advance(Duration.ofSeconds(1));
        scope.admitted(now());
        scope.probeAbandoned();
        assertThat(scope.nanosUntilOpen(now(), PROBE_TIMEOUT)).isZero();
        assertThat(scope.admitted(now())).isTrue();
    }

    @Test
    void aColdScopeSendsItsFirstCallAloneUntilAnAnswerTellsItsLimits() {
        scope.startCold(now() + 3 * SECOND);
        assertThat(scope.inSlowStart()).isTrue();
        assertThat(scope.openToLane()).isFalse();
        assertThat(scope.nanosUntilOpen(now(), PROBE_TIMEOUT)).isZero();
        assertThat(scope.countsSlowStart()).isTrue();
        scope.slowStartAdmitted(NO_CHARGES);
        clock.advance(Duration.ofSeconds(1));
        assertThat(scope.nanosUntilOpen(now(), PROBE_TIMEOUT)).isEqualTo(2 * SECOND);
        learn(Dimension.REQUESTS, 1_000, 999);
        assertThat(scope.inSlowStart()).isFalse();
        assertThat(scope.openToLane()).isTrue();
        assertThat(scope.nanosUntilOpen(now(), PROBE_TIMEOUT)).isZero();
        assertThat(scope.countsSlowStart()).isFalse();
    }

    /** Not knowing is no reason to refuse: once the first answer is late, a few more calls go, never the herd. */
    @Test
    void aLateFirstAnswerLetsAFewMoreCallsGoNotEveryone() {
        scope.startCold(now() + 3 * SECOND);
        scope.slowStartAdmitted(NO_CHARGES);
        clock.advance(Duration.ofSeconds(3));
        assertThat(scope.slowStartWindow(now())).isEqualTo(SlowStart.INITIAL_WINDOW);
        for (int i = 1; i < SlowStart.INITIAL_WINDOW; i++) {
            assertThat(scope.nanosUntilOpen(now(), PROBE_TIMEOUT)).isZero();
            scope.slowStartAdmitted(NO_CHARGES);
        }
        assertThat(scope.nanosUntilOpen(now(), PROBE_TIMEOUT)).isEqualTo(Bucket.ON_RELEASE);
        assertThat(scope.slowStartInFlight()).isEqualTo(SlowStart.INITIAL_WINDOW);
        scope.slowStartReleased(NO_CHARGES);
        assertThat(scope.nanosUntilOpen(now(), PROBE_TIMEOUT)).isZero();
    }

    /** The provider counted the calls sent before its limits were known: the budget learned starts lower by them. */
    @Test
    void aBudgetLearnedInSlowStartOwesWhatTheCallsStillOutCharge() {
        scope.startCold(now() + 3 * SECOND);
        long[] charges = new long[Dimension.values().length];
        charges[Dimension.TOTAL_TOKENS.ordinal()] = 1_000;
        scope.slowStartAdmitted(charges);
        learn(Dimension.TOTAL_TOKENS, 6_000, 6_000);
        assertThat(roomAsCounted(only())).isEqualTo(5_000);
    }

    @Test
    void aPaceSetByARefusalEndsTheSlowStart() {
        scope.startCold(now() + 3 * SECOND);
        scope.slowStartAdmitted(NO_CHARGES);
        scope.refusedDespiteRoom(null, true, now(), now(), clock.epochMillis());
        assertThat(scope.inSlowStart()).isFalse();
        assertThat(scope.paceFromRefusals()).isPositive();
    }

    /** A key found to count against an organization: the organization's scope keeps what its answers widened. */
    @Test
    void aScopeTakingThisOnesPlaceKeepsItsSlowStart() {
        scope.startCold(now() + 3 * SECOND);
        scope.slowStartAdmitted(NO_CHARGES);
        scope.slowStartAccepted();
        ProviderScope organization = new ProviderScope("openai|org-1|gpt", "openai/org-1/gpt", Guarantees.none());
        scope.carrySlowStartTo(organization);
        assertThat(organization.inSlowStart()).isTrue();
        assertThat(organization.openToLane()).isFalse();
        assertThat(organization.slowStartWindow(now())).isEqualTo(SlowStart.INITIAL_WINDOW + 1);
        assertThat(organization.slowStartInFlight()).isZero(); // its own calls are not this one's
    }

    @Test
    void aScopeThatLearnedItsLimitsTakesNoSlowStart() {
        ProviderScope organization = new ProviderScope("openai|org-1|gpt", "openai/org-1/gpt", Guarantees.none());
        organization.learn(
                "requests", Dimension.REQUESTS, 1_000, 900, MINUTE, Long.MAX_VALUE, now(), clock.epochMillis());
        scope.startCold(now() + 3 * SECOND);
        scope.carrySlowStartTo(organization);
        assertThat(organization.inSlowStart()).isFalse();
    }

    @Test
    void aRefusalSluiceHadRoomForLeavesMoreToOthersOfTheBudgetItNamed() {
        learn(Dimension.REQUESTS, 1_000, 900);
        learn(Dimension.TOTAL_TOKENS, 10_000, 9_000);
        scope.refusedDespiteRoom(Dimension.REQUESTS, false, now(), now(), clock.epochMillis());
        Bucket[] b = scope.learnedBuckets();
        assertThat(scope.saved(b[0], now(), clock.epochMillis()).externalShare).isCloseTo(0.225, within(1e-9));
        assertThat(scope.saved(b[1], now(), clock.epochMillis()).externalShare).isZero();
        assertThat(scope.externalShare()).isCloseTo(0.225, within(1e-9));
    }

    @Test
    void aRefusalNamingNoBudgetLeavesMoreToOthersOfEvery() {
        learn(Dimension.REQUESTS, 1_000, 900);
        learn(Dimension.TOTAL_TOKENS, 10_000, 9_000);
        scope.refusedDespiteRoom(null, false, now(), now(), clock.epochMillis());
        for (Bucket b : scope.learnedBuckets()) {
            assertThat(scope.saved(b, now(), clock.epochMillis()).externalShare).isCloseTo(0.225, within(1e-9));
        }
    }

    /** The figures show others' share: the mirror refills only the rest. */
    @Test
    void aFigureBelowWhatSluiceExpectedSlowsTheMirrorsRefill() {
        learn(Dimension.TOTAL_TOKENS, 6_000, 6_000);
        clock.advance(Duration.ofSeconds(6));
        learn(Dimension.TOTAL_TOKENS, 6_000, 5_880); // of the 600 refilled, 120 went to others
        assertThat(scope.externalShare()).isCloseTo(0.2, within(1e-9));
        clock.advance(Duration.ofSeconds(1));
        // 100 a second, of which Sluice keeps 80 %
        assertThat(roomAsCounted(only())).isEqualTo(5_960);
    }

    @Test
    void whereAnswersCarryNoHeadersARefusalStartsAPaceUnderTheRateSent() {
        for (int i = 0; i < 20; i++) {
            scope.answered(true, now());
            clock.advance(Duration.ofMillis(500));
        }
        // two answers a second: the last ten seconds hold 18 of them, 108 a minute; 70 % of that
        scope.refusedDespiteRoom(null, true, now(), now(), clock.epochMillis());
        assertThat(scope.paceFromRefusals()).isEqualTo(76);
        assertThat(only().limit().id()).isEqualTo("openai/k_1/gpt:" + AdaptivePace.BUDGET_NAME);
        // the refused call took what was there: the next waits its turn
        assertThat(only().room(now(), clock.epochMillis())).isZero();
    }

    @Test
    void aScopeThatLearnsFromHeadersIsNeverPacedByRefusals() {
        learn(Dimension.REQUESTS, 1_000, 900);
        scope.refusedDespiteRoom(null, true, now(), now(), clock.epochMillis());
        assertThat(scope.paceFromRefusals()).isEqualTo(-1);
        assertThat(scope.learnedBuckets()).hasSize(1);
    }

    @Test
    void anAcceptedAnswerASecondAfterTheLastRiseRaisesThePace() {
        scope.answered(true, now());
        scope.refusedDespiteRoom(null, true, now(), now(), clock.epochMillis());
        long first = scope.paceFromRefusals();
        clock.advance(Duration.ofMillis(500));
        assertThat(scope.answered(true, now())).isFalse();
        clock.advance(Duration.ofMillis(500));
        assertThat(scope.answered(false, now())).isFalse();
        assertThat(scope.answered(true, now())).isTrue();
        scope.answerRaisesPace(now(), clock.epochMillis());
        assertThat(scope.paceFromRefusals()).isGreaterThan(first);
    }

    @Test
    void aSavedBudgetComesBackRefilledForTheTimeAway() {
        learn(Dimension.TOTAL_TOKENS, 6_000, 6_000); // the provider showed its whole burst once
        learn(Dimension.TOTAL_TOKENS, 6_000, 1_000);
        SavedState.Budget saved = scope.saved(only(), now(), clock.epochMillis());
        assertThat(saved.name).isEqualTo("total_tokens");
        assertThat(saved.room).isEqualTo(1_000);
        ProviderScope restarted = new ProviderScope("openai|k_1|gpt", "openai/k_1/gpt", Guarantees.none());
        restarted.restore(saved, 10_000, now(), clock.epochMillis()); // 10 s away: 1,000 refilled
        Bucket b = restarted.learnedBuckets()[0];
        assertThat(b.limit().capacity()).isEqualTo(6_000);
        assertThat(b.limit().capacityAnnounced()).isTrue();
        assertThat(b.roomAsCounted(now(), clock.epochMillis())).isEqualTo(2_000);
    }

    @Test
    void anInferredCapacityAndItsBurstAndOthersShareComeBackAsSaved() {
        SavedState.Budget saved =
                new SavedState.Budget("total_tokens", Dimension.TOTAL_TOKENS, 6_000, false, 2_000, MINUTE, 100, 0.4);
        scope.restore(saved, 0, now(), clock.epochMillis());
        Bucket b = only();
        assertThat(b.limit().capacity()).isEqualTo(6_000);
        assertThat(b.limit().capacityAnnounced()).isFalse();
        assertThat(b.limit().burst()).isEqualTo(2_000);
        assertThat(scope.externalShare()).isEqualTo(0.4);
    }

    @Test
    void aSavedPaceComesBackAsAPace() {
        SavedState.Budget saved = new SavedState.Budget(
                AdaptivePace.BUDGET_NAME, Dimension.REQUESTS, 90, false, 3, AdaptivePace.WINDOW_MILLIS, 2, 0);
        scope.restore(saved, 0, now(), clock.epochMillis());
        assertThat(scope.paceFromRefusals()).isEqualTo(90);
        assertThat(only().room(now(), clock.epochMillis())).isEqualTo(2);
    }

    @Test
    void aSavedBudgetRefillsAtItsRateLessOthersShareUpToItsCapacity() {
        assertThat(ProviderScope.refilledRoom(100, 6_000, MINUTE, 0.5, 10_000)).isEqualTo(600);
        assertThat(ProviderScope.refilledRoom(-500, 6_000, MINUTE, 0, 1_000)).isEqualTo(100);
        assertThat(ProviderScope.refilledRoom(5_000, 6_000, MINUTE, 0, 60_000)).isEqualTo(6_000);
    }
}
