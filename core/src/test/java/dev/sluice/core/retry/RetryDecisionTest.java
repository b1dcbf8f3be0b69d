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
    void stopsWhenRetryingCannotHelpOrNoAttemptIsLeftAndSaysWhich() {
        RetryDecision policyRefusal =
                RetryDecision.decide(attempt(OutcomeClass.NON_RETRYABLE_POLICY, -1, 1), policy, ample(), 0);
        assertThat(policyRefusal.stop()).isEqualTo(RetryDecision.Stop.PROVIDER_ANSWER);
        assertThat(policyRefusal.why()).isEqualTo("not retryable");
        RetryDecision allUsed =
                RetryDecision.decide(attempt(OutcomeClass.RETRYABLE_CAPACITY, 100, 3), policy, ample(), 0);
        assertThat(allUsed.stop()).isEqualTo(RetryDecision.Stop.PROVIDER_ANSWER);
        assertThat(allUsed.why()).isEqualTo("attempts used (3 of retry.maxAttempts 3)");
        RetryDecision.Attempt cancelled = new RetryDecision.Attempt(OutcomeClass.RETRYABLE_OVERLOAD, -1, 1, true, 0);
        RetryDecision afterCancel = RetryDecision.decide(cancelled, policy, ample(), 0);
        assertThat(afterCancel.retries()).isFalse();
        assertThat(afterCancel.why()).isEqualTo("the caller cancelled");
    }

    @Test
    void aHintTooLongToWaitForOrPastTheDeadlineStops() {
        RetryDecision tooLong =
                RetryDecision.decide(attempt(OutcomeClass.RETRYABLE_CAPACITY, 60_000, 1), policy, ample(), 0);
        assertThat(tooLong.retries()).isFalse();
        assertThat(tooLong.why()).contains("retry.maxHintWait");
        RetryDecision.Attempt due =
                new RetryDecision.Attempt(OutcomeClass.RETRYABLE_CAPACITY, 2_000 * MS, 1, false, 1_000 * MS);
        RetryDecision pastDeadline = RetryDecision.decide(due, policy, ample(), 0);
        assertThat(pastDeadline.retries()).isFalse();
        assertThat(pastDeadline.why()).contains("deadline");
    }

    @Test
    void anEmptyBudgetStopsAndSaysSo() {
        RetryBudget none = new RetryBudget(0.0, 0.0, Duration.ofSeconds(10));
        RetryDecision d = RetryDecision.decide(attempt(OutcomeClass.RETRYABLE_OVERLOAD, -1, 1), policy, none, 0);
        assertThat(d.stop()).isEqualTo(RetryDecision.Stop.BUDGET_EXHAUSTED);
        assertThat(d.why()).isEqualTo("the retry budget is spent");
        assertThat(d).hasToString("stop: BUDGET_EXHAUSTED (the retry budget is spent)");
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
