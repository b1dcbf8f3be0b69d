package dev.sluice.core.retry;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The retry rules on their own: no transport, no governor, a clock that is a number. */
class RetryDecisionTest {

    private static final long MS = 1_000_000L;
    /** Three attempts, backoff from 100 ms to 1 s, no jitter on hints, hints up to 10 s worth waiting for. */
    private final RetryPolicy policy =
            new RetryPolicy(3, Duration.ofMillis(100), Duration.ofSeconds(1), 0.0, Duration.ofSeconds(10));

    private static RetryBudget ample() {
        return new RetryBudget(1.0, 100.0, Duration.ofSeconds(10));
    }

    private static RetryDecision.Attempt attempt(OutcomeClass outcome, long hintMillis, int made) {
        return new RetryDecision.Attempt(outcome, hintMillis < 0 ? -1 : hintMillis * MS, made, false, 0);
    }

    @Test
    void aCapacityRefusalWithAWaitPausesTheScopeForThatWait() {
        RetryDecision d = RetryDecision.decide(attempt(OutcomeClass.RETRYABLE_CAPACITY, 2_000, 1), policy, ample(), 0);
        assertThat(d.retries()).isTrue();
        assertThat(d.pausesScope()).isTrue();
        assertThat(d.waitNanos()).isEqualTo(2_000 * MS);
    }

    @Test
    void anOverloadWithoutAHintBacksOffOnItsOwn() {
        RetryDecision d = RetryDecision.decide(attempt(OutcomeClass.RETRYABLE_OVERLOAD, -1, 1), policy, ample(), 0);
        assertThat(d.retries()).isTrue();
        assertThat(d.pausesScope()).isFalse();
        assertThat(d.waitNanos()).isBetween(0L, 100 * MS);
    }

    @Test
    void stopsWhenRetryingCannotHelpOrNoAttemptIsLeft() {
        assertThat(RetryDecision.decide(attempt(OutcomeClass.NON_RETRYABLE_POLICY, -1, 1), policy, ample(), 0)
                        .stop())
                .isEqualTo(RetryDecision.Stop.PROVIDER_ANSWER);
        assertThat(RetryDecision.decide(attempt(OutcomeClass.RETRYABLE_CAPACITY, 100, 3), policy, ample(), 0)
                        .stop())
                .isEqualTo(RetryDecision.Stop.PROVIDER_ANSWER);
        RetryDecision.Attempt cancelled = new RetryDecision.Attempt(OutcomeClass.RETRYABLE_OVERLOAD, -1, 1, true, 0);
        assertThat(RetryDecision.decide(cancelled, policy, ample(), 0).retries())
                .isFalse();
    }

    @Test
    void aHintTooLongToWaitForOrPastTheDeadlineStops() {
        assertThat(RetryDecision.decide(attempt(OutcomeClass.RETRYABLE_CAPACITY, 60_000, 1), policy, ample(), 0)
                        .retries())
                .isFalse();
        RetryDecision.Attempt due =
                new RetryDecision.Attempt(OutcomeClass.RETRYABLE_CAPACITY, 2_000 * MS, 1, false, 1_000 * MS);
        assertThat(RetryDecision.decide(due, policy, ample(), 0).retries()).isFalse();
    }

    @Test
    void anEmptyBudgetStopsAndSaysSo() {
        RetryBudget none = new RetryBudget(0.0, 0.0, Duration.ofSeconds(10));
        RetryDecision d = RetryDecision.decide(attempt(OutcomeClass.RETRYABLE_OVERLOAD, -1, 1), policy, none, 0);
        assertThat(d.stop()).isEqualTo(RetryDecision.Stop.BUDGET_EXHAUSTED);
    }

    @Test
    void theBudgetIsSpentOnlyWhenEverythingElseAllowsTheRetry() {
        RetryBudget one = new RetryBudget(0.0, 0.1, Duration.ofSeconds(10)); // one retry in the window
        RetryDecision.decide(attempt(OutcomeClass.NON_RETRYABLE_REQUEST, -1, 1), policy, one, 0);
        RetryDecision.decide(attempt(OutcomeClass.RETRYABLE_CAPACITY, 60_000, 1), policy, one, 0);
        assertThat(RetryDecision.decide(attempt(OutcomeClass.RETRYABLE_OVERLOAD, -1, 1), policy, one, 0)
                        .retries())
                .isTrue();
        assertThat(RetryDecision.decide(attempt(OutcomeClass.RETRYABLE_OVERLOAD, -1, 1), policy, one, 0)
                        .stop())
                .isEqualTo(RetryDecision.Stop.BUDGET_EXHAUSTED);
    }
}
