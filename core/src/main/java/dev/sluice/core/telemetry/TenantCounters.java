package dev.sluice.core.telemetry;

/**
 * What one tenant was admitted, used and refused. Written under the governor's lock only (one
 * writer at a time, no atomic operations on the admission path); read racily by status views.
 */
@SuppressWarnings("NonAtomicVolatileUpdate") // single writer: the governor's lock holder
public final class TenantCounters {

    private long admitted;
    private long rejected;
    private long reservedTokens;
    private long inputTokens;
    private long outputTokens;
    private long borrowedTokens;
    private long waitedNanos;

    public void onAdmitted(long tokens, long borrowed, long waited) {
        admitted++;
        reservedTokens += tokens;
        borrowedTokens += borrowed;
        waitedNanos += waited;
    }

    /** {@code calls} admitted at once (without waiting or borrowing), reserving {@code tokens} in all. */
    public void onAdmittedAtOnce(long calls, long tokens) {
        admitted += calls;
        reservedTokens += tokens;
    }

    public void onRejected() {
        rejected++;
    }

    public void onUsed(long input, long output) {
        inputTokens += input;
        outputTokens += output;
    }

    /** Calls admitted. */
    public long admitted() {
        return admitted;
    }

    public long rejected() {
        return rejected;
    }

    /** Tokens reserved at admission (estimates). */
    public long reservedTokens() {
        return reservedTokens;
    }

    /** Input tokens used, as settled. */
    public long inputTokens() {
        return inputTokens;
    }

    /** Output tokens used, as settled. */
    public long outputTokens() {
        return outputTokens;
    }

    /**
     * For a tenant with a guaranteed share: tokens it took from the common pool of shared limits
     * beyond what its guaranteed reserve covered.
     */
    public long borrowedTokens() {
        return borrowedTokens;
    }

    /** Total time its calls waited for admission. */
    public long waitedNanos() {
        return waitedNanos;
    }
}
