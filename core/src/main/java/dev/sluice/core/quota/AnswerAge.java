package dev.sluice.core.quota;

/**
 * How old a provider's answer is when Sluice reads it. The provider counts a call, and works out
 * the {@code remaining} it announces, when the call arrives; Sluice reads that figure with the
 * answer's headers: at the first byte of a stream, after the whole body of a sync call. Meanwhile
 * Sluice has admitted other calls (already taken from its own view, not yet in that figure) and
 * the provider's budget has refilled. Lowering a mirror to the raw figure would forget those
 * calls and admit them a second time; reading the figure as of now lowers it to what is really
 * left.
 *
 * <p>When the call was counted: when the provider says how long it worked on it ({@code
 * openai-processing-ms}), that long before its answer came; else when Sluice admitted it. Calls
 * admitted within {@link #REORDER_NANOS} of that moment may have reached the provider first, so
 * only later ones are taken off (see {@link Bucket#admittedTotal()} for how the lock-free lane's
 * calls are counted), and of those only the ones still in flight: one that has ended was answered,
 * and its own answer, read before or with this one, already lowered the room if it was counted
 * after the answered call. Thousands of calls opening connections at once reach the provider
 * seconds after their admission and in any order; taking off what the figure counted already left
 * a scope in debt, stalled for half a minute with room to spare. The figure errs towards the raw
 * one. Made by the governor from the answered call's permit; read under the governor's lock.
 */
public final class AnswerAge {

    /** An answer read as current: nothing is known of the call it belongs to. */
    public static final AnswerAge CURRENT = new AnswerAge(0, 0, false, new Bucket[0], new long[0], new long[0], 0);

    private final long ageNanos;
    private final long countedNanos;
    private final boolean countTold;
    private final Bucket[] buckets;
    private final long[] admittedMarks;
    private final long[] amounts;
    private final int bucketsSettled;

    /**
     * @param ageNanos how long ago the provider counted the answered call
     * @param countedNanos when it counted it (its admission when the provider did not say)
     * @param countTold whether the provider said when it counted it ({@code countedNanos} is not the
     *     admission, assumed)
     * @param buckets the buckets the call was admitted through
     * @param admittedMarks each bucket's {@link Bucket#admittedTotal()} just after that admission
     * @param amounts what the call reserved in each bucket
     * @param bucketsSettled how many of {@code buckets}, in order, its settlement has given back
     */
    public AnswerAge(
            long ageNanos,
            long countedNanos,
            boolean countTold,
            Bucket[] buckets,
            long[] admittedMarks,
            long[] amounts,
            int bucketsSettled) {
        this.ageNanos = Math.max(0, ageNanos);
        this.countedNanos = countedNanos;
        this.countTold = countTold;
        this.buckets = buckets;
        this.admittedMarks = admittedMarks;
        this.amounts = amounts;
        this.bucketsSettled = bucketsSettled;
    }

    /**
     * Calls admitted this close after the answered one was counted (in practice: in the same dispatch, a burst
     * admitted at once, which reaches the provider in any order) may have been counted before it:
     * they are not taken off its figure a second time. Admissions are sampled every 20 ms at most
     * ({@link Bucket#admittedTotalAt}), so the window is that long in effect.
     */
    static final long REORDER_NANOS = 1_000_000L;

    /**
     * What was admitted into {@code bucket} long enough after the answered call was counted that the
     * provider may not have counted it in the figure ({@link #REORDER_NANOS}) and is still in flight, or -1
     * when the call did not go through the bucket.
     */
    long admittedSince(Bucket bucket) {
        for (int i = 0; i < buckets.length && i < admittedMarks.length; i++) {
            if (buckets[i] == bucket) {
                long from = Math.max(admittedMarks[i], bucket.admittedTotalAt(countedNanos + REORDER_NANOS));
                long since = Math.max(0, bucket.admittedTotal() - from);
                // what others hold reserved bounds what of it is in flight (calls admitted before
                // the answered one included: the bound errs towards taking off more)
                long own = unsettledAmount(i);
                long othersInFlight = Math.max(0, bucket.reserved() - own);
                return Math.min(since, othersInFlight);
            }
        }
        return -1;
    }

    /**
     * What the provider's {@code remaining} of {@code bucket}'s budget is likely to be now: the
     * figure, plus what the budget refilled since it was counted (less what others take of the
     * refill), less what Sluice admitted since and is still in flight. The raw figure when the
     * answered call did not go through the bucket (a scope merged meanwhile). Never below one
     * window's debt. What a room is lowered to.
     */
    double remainingNow(Bucket bucket, long remaining, double othersShare) {
        long since = admittedSince(bucket);
        if (since < 0) {
            return remaining;
        }
        return Math.max(
                refilled(bucket, remaining, othersShare) - since,
                -bucket.limit().capacity());
    }

    /**
     * What had been admitted into {@code bucket} in all ({@link Bucket#admittedTotal}) when the
     * figure was counted, as far as it can have counted it: what was admitted since is not in the
     * figure. The total now when nothing is known of the answered call, or it did not go through
     * the bucket. Lock held.
     */
    long countedMark(Bucket bucket) {
        for (int i = 0; i < buckets.length && i < admittedMarks.length; i++) {
            if (buckets[i] == bucket) {
                return Math.max(admittedMarks[i], bucket.admittedTotalAt(countedNanos + REORDER_NANOS));
            }
        }
        return bucket.admittedTotal();
    }

    /** What the answered call reserved in {@code bucket}, 0 when it did not go through it. */
    long answeredAmount(Bucket bucket) {
        for (int i = 0; i < buckets.length && i < amounts.length; i++) {
            if (buckets[i] == bucket) {
                return amounts[i];
            }
        }
        return 0;
    }

    /** When the figure was counted, for an answer read at {@code nowNanos}. */
    long countedAt(long nowNanos) {
        return nowNanos - ageNanos;
    }

    /**
     * What {@link #remainingNow} took off for calls the provider may have counted in the figure
     * already: the calls admitted after an answered call whose count was assumed at its admission
     * (they may have arrived before it: a connection storm's calls reach the provider in any
     * order), 0 when the provider told when it counted it (calls admitted after that arrived after
     * it).
     */
    long ambiguouslyTakenOff(Bucket bucket) {
        return countTold ? 0 : Math.max(0, admittedSince(bucket));
    }

    /**
     * Whether the answered call charged {@code bucket} and nothing else of Sluice's is in flight
     * there: every other call it sent there has ended, so the provider has counted them all. False
     * when nothing is known of the answered call (an answer read as current), and when it charged
     * the bucket nothing (a call whose tokens could not be read is not in a token bucket's count).
     */
    boolean lastInFlight(Bucket bucket) {
        for (int i = 0; i < buckets.length; i++) {
            if (buckets[i] == bucket) {
                if (i >= amounts.length || amounts[i] <= 0) {
                    return false;
                }
                long own = unsettledAmount(i);
                return bucket.reserved() - own <= 0;
            }
        }
        return false;
    }

    /** What the answered call still holds reserved in its {@code i}-th bucket (0 once settled there). */
    private long unsettledAmount(int i) {
        return i < amounts.length && i >= bucketsSettled ? amounts[i] : 0;
    }

    /**
     * The figure plus what the budget refilled since it was counted, up to the capacity. Not
     * rounded: an answer comes every few calls, and each rounding down would lower the room by
     * the refill's fraction once more, leaving the mirror a unit or two under the provider for
     * good (a tenth of the capacity of a 600-a-minute limit with a second's burst).
     */
    private double refilled(Bucket bucket, long remaining, double othersShare) {
        Limit l = bucket.limit();
        double refill = 0;
        if (!bucket.isWindowed() && l.windowNanos() > 0) {
            double age = Math.min(ageNanos, l.windowNanos());
            refill = l.capacity() * (1 - othersShare) * age / l.windowNanos();
        }
        return Math.min(Math.max(l.capacity(), remaining), remaining + refill);
    }
}
