package dev.sluice.core.provider.wire;

import dev.sluice.core.retry.OutcomeClass;
import dev.sluice.core.retry.WaitHints.ShouldRetry;

/**
 * The outcome class an HTTP status means when the body says nothing more, and the rule that
 * {@code x-should-retry} overrides it. Adapters start here and refine by the provider's error
 * codes.
 */
public final class StatusOutcomes {

    private StatusOutcomes() {}

    /**
     * 2xx success; 429 capacity; 408 and 5xx (500, 502, 503, 504, 529...) transient overload; 402
     * and 409 policy (spend caps, residency filters: retrying cannot help); other statuses the
     * request's own fault.
     */
    public static OutcomeClass byStatus(int status) {
        if (status >= 200 && status < 300) {
            return OutcomeClass.SUCCESS;
        }
        if (status == 429) {
            return OutcomeClass.RETRYABLE_CAPACITY;
        }
        if (status == 408 || status >= 500) {
            return OutcomeClass.RETRYABLE_OVERLOAD;
        }
        if (status == 402 || status == 409) {
            return OutcomeClass.NON_RETRYABLE_POLICY;
        }
        return OutcomeClass.NON_RETRYABLE_REQUEST;
    }

    /**
     * Applies {@code x-should-retry}, which providers' own SDKs obey over any status: false turns a
     * retryable class into policy (the provider says waiting will not help), true turns a
     * non-retryable one into capacity (429) or overload (anything else).
     */
    public static OutcomeClass obey(ShouldRetry says, OutcomeClass outcome, int status) {
        if (says == ShouldRetry.NO && outcome.retryable()) {
            return OutcomeClass.NON_RETRYABLE_POLICY;
        }
        if (says == ShouldRetry.YES && !outcome.retryable() && outcome != OutcomeClass.SUCCESS) {
            return status == 429 ? OutcomeClass.RETRYABLE_CAPACITY : OutcomeClass.RETRYABLE_OVERLOAD;
        }
        return outcome;
    }
}
