package dev.sluice.core.quota;

/**
 * How old a provider's answer is when Sluice reads it. The provider counts a call, and works out
 * the {@code remaining} it announces, when the call arrives; Sluice reads that figure with the
 * answer's headers: at the first byte of a stream, after the whole body of a sync call. Meanwhile
 * Sluice has admitted other calls (already taken from its own view, not yet in that figure) and
 * the provider's budget has refilled. Lowering a mirror to the raw figure would forget those
 * calls and admit them a second time; reading the figure as of now lowers it to what is really
 * left. Calls admitted within {@link #REORDER_NANOS} of the answered one may have reached the
 * provider first, so only later ones are taken off (see {@link Bucket#admittedTotal()} for how
 * the lock-free lane's calls are counted); the figure errs towards the raw one.
 * Made by the governor from the answered call's permit; read under the governor's lock.
 */
public final class AnswerAge {

    /** An answer read as current: nothing is known of the call it belongs to. */
    public static final AnswerAge CURRENT = new AnswerAge(0, 0, new Bucket[0], new long[0]);

    private final long ageNanos;
    private final long admittedNanos;
    private final Bucket[] buckets;
    private final long[] admittedMarks;

    /**
     * @param ageNanos how long ago the answered call was admitted
     * @param admittedNanos when it was admitted
     * @param buckets the buckets the call was admitted through
     * @param admittedMarks each bucket's {@link Bucket#admittedTotal()} just after that admission
     */
    public AnswerAge(long ageNanos, long admittedNanos, Bucket[] buckets, long[] admittedMarks) {
        this.ageNanos = Math.max(0, ageNanos);
        this.admittedNanos = admittedNanos;
        this.buckets = buckets;
        this.admittedMarks = admittedMarks;
    }

    /**
     * Calls admitted this close after the answered one (in practice: in the same dispatch, a burst
     * admitted at once, which reaches the provider in any order) may have been counted before it:
     * they are not taken off its figure a second time. Admissions are sampled every 20 ms at most
     * ({@link Bucket#admittedTotalAt}), so the window is that long in effect.
     */
    static final long REORDER_NANOS = 1_000_000L;

    /**
     * What was admitted into {@code bucket} long enough after the answered call that the provider
     * had surely not counted it in the figure ({@link #REORDER_NANOS}), or -1 when the call did not
     * go through the bucket.
     */
    long admittedSince(Bucket bucket) {
        for (int i = 0; i < buckets.length && i < admittedMarks.length; i++) {
            if (buckets[i] == bucket) {
                long from = Math.max(admittedMarks[i], bucket.admittedTotalAt(admittedNanos + REORDER_NANOS));
                return Math.max(0, bucket.admittedTotal() - from);
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
