package dev.sluice.core.retry;

/**
 * What the one retry loop does after an attempt the provider refused or a connection failed:
 * try again after a wait (pausing the whole provider scope when the provider named the wait for a
 * capacity refusal), or stop and say why. A value: decided by {@link #decide}, without a transport,
 * so the rules are testable on their own.
 */
public final class RetryDecision {

    /** Why the loop stopped. */
    public enum Stop {
        /** Another attempt would not help, or none is left: the provider's answer goes back. */
        PROVIDER_ANSWER,
        /** The provider scope's retry budget is spent: retries stay a bounded share of traffic. */
        BUDGET_EXHAUSTED
    }

    private static final RetryDecision NOT_RETRYABLE = stop(Stop.PROVIDER_ANSWER, "not retryable");
    private static final RetryDecision CANCELLED = stop(Stop.PROVIDER_ANSWER, "the caller cancelled");
    private static final RetryDecision HINT_TOO_LONG =
            stop(Stop.PROVIDER_ANSWER, "the provider's wait is longer than retry.maxHintWait");
    private static final RetryDecision PAST_DEADLINE =
            stop(Stop.PROVIDER_ANSWER, "the wait would end past the caller's deadline");
    private static final RetryDecision STOP_BUDGET = stop(Stop.BUDGET_EXHAUSTED, "the retry budget is spent");

    private final Stop stop;
    private final String why;
    private final long waitNanos;
    private final boolean pausesScope;

    private RetryDecision(Stop stop, String why, long waitNanos, boolean pausesScope) {
        this.stop = stop;
        this.why = why;
        this.waitNanos = waitNanos;
        this.pausesScope = pausesScope;
    }

    private static RetryDecision stop(Stop stop, String why) {
        return new RetryDecision(stop, why, 0, false);
    }

    /** What one attempt came to, as the retry rules need it. */
    public static final class Attempt {
        final OutcomeClass outcome;
        final long hintNanos;
        final int attemptsMade;
        final boolean cancelled;
        final long deadlineNanos;

        /**
         * @param hintNanos the provider's wait hint, or a negative value when it gave none
         * @param deadlineNanos the caller's deadline on the governor's clock, or 0 for none
         */
        public Attempt(OutcomeClass outcome, long hintNanos, int attemptsMade, boolean cancelled, long deadlineNanos) {
            this.outcome = outcome;
            this.hintNanos = hintNanos;
            this.attemptsMade = attemptsMade;
            this.cancelled = cancelled;
            this.deadlineNanos = deadlineNanos;
        }
    }

    /**
     * The one retry decision: a retryable class, attempts left, a hint short enough to wait for,
     * a wait that ends before the caller's deadline, and budget left in the provider scope (spent
     * only when everything else allows the retry).
     */
    public static RetryDecision decide(Attempt a, RetryPolicy policy, RetryBudget budget, long nowNanos) {
        if (!a.outcome.retryable()) {
            return NOT_RETRYABLE;
        }
        if (a.attemptsMade >= policy.maxAttempts()) {
            return stop(
                    Stop.PROVIDER_ANSWER,
                    "attempts used (" + a.attemptsMade + " of retry.maxAttempts " + policy.maxAttempts() + ")");
        }
        if (a.cancelled) {
            return CANCELLED;
        }
        if (a.hintNanos >= 0 && policy.tooLongToWait(a.hintNanos)) {
            return HINT_TOO_LONG;
        }
        long wait = policy.delayNanos(a.attemptsMade + 1, a.hintNanos);
        if (a.deadlineNanos != 0 && nowNanos + wait - a.deadlineNanos > 0) {
            return PAST_DEADLINE;
        }
        if (!budget.tryRetry(nowNanos)) {
            return STOP_BUDGET;
        }
        // a capacity refusal with a wait named applies to everyone calling the scope
        boolean pause = a.outcome == OutcomeClass.RETRYABLE_CAPACITY && a.hintNanos >= 0;
        return new RetryDecision(null, null, wait, pause);
    }

    public boolean retries() {
        return stop == null;
    }

    /** Why the loop stopped; null when it retries. */
    public Stop stop() {
        return stop;
    }

    /** Why the loop stopped, in words for the decision log; null when it retries. */
    public String why() {
        return why;
    }

    /** How long to wait before the next attempt. */
    public long waitNanos() {
        return waitNanos;
    }

    /** Whether the wait pauses the whole provider scope (every caller), not only this call. */
    public boolean pausesScope() {
        return pausesScope;
    }

    @Override
    public String toString() {
        return retries()
                ? "retry after " + waitNanos / 1_000_000 + " ms" + (pausesScope ? " (scope paused)" : "")
                : "stop: " + stop + " (" + why + ")";
    }
}
