package dev.sluice.core.observe;

import java.util.concurrent.atomic.LongAdder;

/** What one tenant was admitted, used and refused. Thread-safe. */
public final class TenantCounters {

    final LongAdder admitted = new LongAdder();
    final LongAdder rejected = new LongAdder();
    final LongAdder reservedTokens = new LongAdder();
    final LongAdder inputTokens = new LongAdder();
    final LongAdder outputTokens = new LongAdder();
    final LongAdder borrowedTokens = new LongAdder();
    final LongAdder waitedNanos = new LongAdder();

    public void onAdmitted(long tokens, long borrowed, long waited) {
        admitted.increment();
        reservedTokens.add(tokens);
        borrowedTokens.add(borrowed);
        waitedNanos.add(waited);
    }

    public void onRejected() {
        rejected.increment();
    }

    public void onUsed(long input, long output) {
        inputTokens.add(input);
        outputTokens.add(output);
    }

    /** Calls admitted. */
    public long admitted() {
        return admitted.sum();
    }

    public long rejected() {
        return rejected.sum();
    }

    /** Tokens reserved at admission (estimates). */
    public long reservedTokens() {
        return reservedTokens.sum();
    }

    /** Input tokens used, as settled. */
    public long inputTokens() {
        return inputTokens.sum();
    }

    /** Output tokens used, as settled. */
    public long outputTokens() {
        return outputTokens.sum();
    }

    /**
     * For a tenant with a guaranteed share: tokens it took from the common pool of shared limits
     * beyond what its guaranteed reserve covered.
     */
    public long borrowedTokens() {
        return borrowedTokens.sum();
    }

    /** Total time its calls waited for admission. */
    public long waitedNanos() {
        return waitedNanos.sum();
    }
}
