package dev.sluice.core.retry;

/** What one attempt's answer means for the call, whatever the provider (docs/design.md, Outcome classes). */
public enum OutcomeClass {
    /** 2xx: the call is done. */
    SUCCESS(false),
    /** 429 rate limit: waiting helps; retry within the budget after the wait hint. */
    RETRYABLE_CAPACITY(true),
    /** 503, 529, mid-stream overload, connection reset before a response: transient. */
    RETRYABLE_OVERLOAD(true),
    /** Spend caps, daily quotas, 402, insufficient_quota, policy 409: retrying cannot help. */
    NON_RETRYABLE_POLICY(false),
    /** 400, 401, 403, 404, 413, 422, request larger than any window: the request itself is wrong. */
    NON_RETRYABLE_REQUEST(false),
    /** The caller's deadline passed. */
    DEADLINE(false);

    private final boolean retryable;

    OutcomeClass(boolean retryable) {
        this.retryable = retryable;
    }

    /** Whether another attempt may help. */
    public boolean retryable() {
        return retryable;
    }
}
