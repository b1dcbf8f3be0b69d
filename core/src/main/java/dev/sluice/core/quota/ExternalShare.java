package dev.sluice.core.quota;

/**
 * What consumers Sluice cannot see (another service on the same organization, a batch job with
 * another key, a person in a playground) take of one provider budget, estimated from the
 * provider's own figures, so the bucket mirroring that budget refills only what is left to Sluice.
 *
 * <p>Between two answers the provider's budget refills at its full rate and loses what Sluice
 * and the others took; Sluice's mirror refills at the rate less the current estimate {@code s} and
 * loses what Sluice took. So when an answer says {@code remaining}, Sluice's view just before it
 * differs by {@code (others - s) x refill}: the others' share of the refill is {@code s + gap /
 * refill}. Each answer at least {@link #MIN_SPAN} of a window after the last sample adds such a
 * sample to a moving average; answers where the provider shows more room than Sluice expected
 * pull it down, so the room is given back as the evidence fades. A capacity refusal Sluice did not
 * expect raises it at once, once for a burst of them. Guarded by the governor's lock.
 */
final class ExternalShare {

    /** The most Sluice ever leaves to others: it always keeps a tenth of a budget's refill. */
    static final double MAX = 0.9;
    /** Weight of a new sample in the moving average. */
    private static final double WEIGHT = 0.3;
    /** Shortest span between samples, as a share of the window: shorter ones are mostly noise. */
    private static final double MIN_SPAN = 0.05;
    /** A gap under this share of the capacity is noise (rounding, a call in flight). */
    private static final double TOLERANCE = 0.01;
    /** How much of what is left to leave to others on a refusal Sluice did not expect. */
    private static final double ON_SURPRISE = 0.25;

    private double share;
    private long sampledAtNanos;
    private boolean sampled;
    /** When a refusal last raised the estimate, once one did. */
    private long surprisedAtNanos;

    private boolean surprisedOnce;

    /** The current estimate, in [0, {@link #MAX}]. */
    double share() {
        return share;
    }

    /**
     * An answer said {@code remaining} of a budget of {@code capacity} over {@code windowNanos};
     * Sluice's own view of it just before was {@code view}. Of what was taken off the figure for
     * Sluice's own calls in flight, {@code ambiguous} may have been in it already (see {@link
     * AnswerAge#ambiguouslyTakenOff}); an answer where that alone exceeds the refill since the
     * last sample says more about the order calls arrived in than about others, and is no sample.
     *
     * @return whether the estimate changed
     */
    boolean observe(long view, long remaining, long ambiguous, long capacity, long windowNanos, long nowNanos) {
        if (!sampled) {
            sampled = true;
            sampledAtNanos = nowNanos;
            return false;
        }
        double span = (double) (nowNanos - sampledAtNanos) / windowNanos;
        if (span < MIN_SPAN) {
            return false;
        }
        double refill = capacity * Math.min(span, 1.0);
        if (ambiguous > refill) {
            return false;
        }
        sampledAtNanos = nowNanos;
        double gap = view - remaining;
        if (Math.abs(gap) <= Math.max(1.0, TOLERANCE * capacity)) {
            gap = 0;
        }
        double sample = Math.max(0.0, Math.min(MAX, share + gap / refill));
        double next = share + WEIGHT * (sample - share);
        if (next < 0.005) {
            next = 0; // gone: give the last of it back
        }
        boolean changed = next != share;
        share = next;
        return changed;
    }

    /** The estimate a previous run saved. */
    void restore(double saved) {
        share = Math.max(0.0, Math.min(MAX, saved));
    }

    /**
     * The provider refused a call for capacity while Sluice believed there was room. A refusal of
     * a call admitted before the last one that raised the estimate is the same evidence again
     * (Sluice's pace had not been corrected when it was sent): ten 429s that met the end of one
     * burst once left others 85 % of a budget they did not use, and the scope crawled at a tenth
     * of its rate. A call admitted after that and still refused is new evidence.
     *
     * @param admittedNanos when the refused call was admitted
     * @return whether the estimate changed
     */
    boolean surprised(long admittedNanos, long nowNanos) {
        if (surprisedOnce && admittedNanos - surprisedAtNanos < 0) {
            return false;
        }
        surprisedOnce = true;
        surprisedAtNanos = nowNanos;
        double next = Math.min(MAX, share + ON_SURPRISE * (MAX - share));
        boolean changed = next != share;
        share = next;
        return changed;
    }
}
