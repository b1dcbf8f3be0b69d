package dev.sluice.core.quota;

/**
 * A bucket as the lock-free lane's lender (see {@link TokenBucket}): it lends room to the lane's
 * stripes ({@link LaneCredit}) and counts the lane's admissions as reserved once the governor
 * registers them. {@link Bucket#laneLender} gives it; a bucket that never lends (windows,
 * concurrency, a shared store, reserves) has none. Used under the governor's lock.
 */
public interface LaneLender {

    /**
     * The room lent, which the lane takes without the lock; null when the bucket lends no more
     * (it left its limit's cache).
     */
    LaneCredit credit();

    /** Tops up what the calling thread's stripe holds of lent room. */
    void lend(int stripe, long nowNanos);

    /**
     * Lane admissions that took {@code amount} in all were registered: from now on it is counted
     * as reserved like any other reservation, no longer as lent. {@code nowNanos} must be a fresh
     * reading (see {@link TokenBucket}).
     */
    void registered(long amount, long nowNanos);
}
