package dev.sluice.core.exchange;

import java.util.concurrent.atomic.LongAdder;

/** What happened to one provider's calls: attempts, the provider's refusals, Sluice's own answers. */
public final class ProviderCounters {

    final LongAdder calls = new LongAdder();
    final LongAdder attempts = new LongAdder();
    final LongAdder retries = new LongAdder();
    final LongAdder localRejections = new LongAdder();
    final LongAdder status429 = new LongAdder();
    final LongAdder status503 = new LongAdder();
    final LongAdder status529 = new LongAdder();
    final LongAdder otherErrors = new LongAdder();
    final LongAdder connectionFailures = new LongAdder();
    final LongAdder streamErrors = new LongAdder();
    final LongAdder retryBudgetExhausted = new LongAdder();
    final LongAdder faults = new LongAdder();
    final LongAdder inputTokens = new LongAdder();
    final LongAdder outputTokens = new LongAdder();

    /** Logical calls seen. */
    public long calls() {
        return calls.sum();
    }

    /** Attempts sent to the provider. */
    public long attempts() {
        return attempts.sum();
    }

    /** Attempts beyond the first of their call. */
    public long retries() {
        return retries.sum();
    }

    /** Calls answered by Sluice itself (rejections built in the provider's shape). */
    public long localRejections() {
        return localRejections.sum();
    }

    public long status429() {
        return status429.sum();
    }

    public long status503() {
        return status503.sum();
    }

    public long status529() {
        return status529.sum();
    }

    /** Other non-2xx answers from the provider. */
    public long otherErrors() {
        return otherErrors.sum();
    }

    /** Attempts that failed before a response (connection reset, timeout). */
    public long connectionFailures() {
        return connectionFailures.sum();
    }

    /** Errors signalled inside a successful response (mid-stream overload). */
    public long streamErrors() {
        return streamErrors.sum();
    }

    public long retryBudgetExhausted() {
        return retryBudgetExhausted.sum();
    }

    /** Faults inside Sluice while governing this provider's calls (each let the call through). */
    public long faults() {
        return faults.sum();
    }

    public long inputTokens() {
        return inputTokens.sum();
    }

    public long outputTokens() {
        return outputTokens.sum();
    }
}
