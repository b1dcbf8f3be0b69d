package dev.sluice.core.quota;

/**
 * How old a provider's answer is when Sluice reads it. The provider counts a call, and works out
 * the {@code remaining} it announces, when the call arrives; Sluice reads that figure with the
 * answer's headers: at the first byte of a stream, after the whole body of a sync call. Meanwhile
 * Sluice has admitted other calls (already taken from its own view, not yet in that figure) and
 * the provider's budget has refilled. Lowering a mirror to the raw figure would forget those
 * calls and admit them a second time; reading the figure as of now lowers it to what is really
 * left. Made by the governor from the answered call's permit; read under the governor's lock.
 */
public final class AnswerAge {

    /** An answer read as current: nothing is known of the call it belongs to. */
    public static final AnswerAge CURRENT = new AnswerAge(0, new Bucket[0], new long[0]);

    private final long ageNanos;
    private final Bucket[] buckets;
    private final long[] admittedMarks;

    /**
     * @param ageNanos how long ago the answered call was admitted
     * @param buckets the buckets the call was admitted through
     * @param admittedMarks each bucket's {@link Bucket#admittedTotal()} just after that admission
     */
    public AnswerAge(long ageNanos, Bucket[] buckets, long[] admittedMarks) {
        this.ageNanos = Math.max(0, ageNanos);
        this.buckets = buckets;
        this.admittedMarks = admittedMarks;
    }

    /** What was admitted into {@code bucket} after the answered call, or -1 when the call did not go through it. */
    long admittedSince(Bucket bucket) {
        for (int i = 0; i < buckets.length && i < admittedMarks.length; i++) {
            if (buckets[i] == bucket) {
                return bucket.admittedTotal() - admittedMarks[i];
            }
        }
        return -1;
    }

    /**
     * What the provider's {@code remaining} of {@code bucket}'s budget is likely to be now: the
     * figure, plus what the budget refilled since (less what others take of the refill), less what
     * Sluice admitted since. The raw figure when the answered call did not go through the bucket
     * (a scope merged meanwhile). Never below one window's debt.
     */
    long remainingNow(Bucket bucket, long remaining, double othersShare) {
        long since = admittedSince(bucket);
        if (since < 0) {
            return remaining;
        }
        Limit l = bucket.limit();
        double refill = 0;
        if (!bucket.isWindowed() && l.windowNanos() > 0) {
            double age = Math.min(ageNanos, l.windowNanos());
            refill = l.capacity() * (1 - othersShare) * age / l.windowNanos();
        }
        long now = (long) Math.min(Math.max(l.capacity(), remaining), remaining + refill) - since;
        return Math.max(now, -l.capacity());
    }
}
