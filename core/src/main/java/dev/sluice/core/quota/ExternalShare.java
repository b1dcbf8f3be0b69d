package dev.sluice.core.quota;

/**
 * What consumers Sluice cannot see (another service on the same organization, a batch job with
 * another key, a person in a playground) take of one provider budget, estimated from the
 * provider's own figures, so the bucket mirroring that budget refills only what is left to Sluice.
 *
 * <p>Between two samples the provider's budget refills {@code R} and loses what Sluice and the
 * others took; Sluice's mirror refills {@code (1 - s) R} at the current estimate {@code s} and
 * loses what Sluice took. Every answer in between lowers the mirror to its figure when the figure
 * is lower (a raise counts negatively), so these corrections add up what the mirror missed: the
 * others took {@code s R}, plus the corrections since the last sample, plus how far the mirror
 * stands above the figure now, less how far above it stood then. A sample is that over {@code R}. Adding the
 * corrections up is what makes a neighbour visible: answers come every few calls, each lowering
 * the mirror by the little the others took since the one before, and no single answer shows more
 * than that. The figures' rounding only shows at a span's two ends, within {@link #TOLERANCE}.
 *
 * <p>Each answer at least {@link #MIN_SPAN} of a window after the last sample adds a sample: the
 * first sets the estimate, later ones move a moving average. Answers where the provider shows
 * more room than Sluice expected pull it down, so the room is given back as the evidence fades. A
 * capacity refusal Sluice did not expect raises it at once, once for a burst of them. Guarded by
 * the governor's lock.
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
    /** Whether a sample set the estimate yet: the first sets it, later ones move it. */
    private boolean estimated;
    /**
     * How far the mirror stood above the figure at the last sample, 0 when under it. The figure
     * lowered it by that much, a correction the next span counts, so it is taken off there. A
     * mirror standing under the figure is not lowered: its whole gap counts at every sample,
     * pulling the estimate down for as long as it stands (the provider's bucket may be full, its
     * refill lost, and no figure raises a mirror while calls are in flight).
     */
    private double aboveFigureAtSample;
    /** The mirror's {@link Bucket#figureCorrections()} at the last sample. */
    private double correctionsAtSample;
    /** When a refusal last raised the estimate, once one did. */
    private long surprisedAtNanos;

    private boolean surprisedOnce;

    /** The current estimate, in [0, {@link #MAX}]. */
    double share() {
        return share;
    }

    /**
     * An answer said the provider has {@code remaining} left now of a budget of {@code capacity}
     * over {@code windowNanos}; Sluice's view of it just before was {@code view}, and figures had
     * corrected its mirror by {@code corrections} in all ({@link Bucket#figureCorrections()}). Of
     * what was taken off the figure for Sluice's own calls in flight, {@code ambiguous} may have
     * been in it already (see {@link AnswerAge#ambiguouslyTakenOff}); an answer where that alone
     * exceeds the refill since the last sample says more about the order calls arrived in than
     * about others, and is no sample.
     *
     * @return whether the estimate changed
     */
    boolean observe(
            double view,
            double remaining,
            double corrections,
            long ambiguous,
            long capacity,
            long windowNanos,
            long nowNanos) {
        double difference = view - remaining;
        if (!sampled) {
            sampled = true;
            startSpan(difference, corrections, nowNanos);
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
        double gap = corrections - correctionsAtSample + difference - aboveFigureAtSample;
        startSpan(difference, corrections, nowNanos);
        if (Math.abs(gap) <= Math.max(1.0, TOLERANCE * capacity)) {
            gap = 0;
        }
        double sample = Math.max(0.0, Math.min(MAX, share + gap / refill));
        double next = estimated ? share + WEIGHT * (sample - share) : sample;
        estimated = true;
        if (next < 0.005) {
            next = 0; // gone: give the last of it back
        }
        boolean changed = next != share;
        share = next;
        return changed;
    }

    private void startSpan(double difference, double corrections, long nowNanos) {
        sampledAtNanos = nowNanos;
        aboveFigureAtSample = Math.max(0, difference);
        correctionsAtSample = corrections;
    }

    /** The estimate a previous run saved. */
    void restore(double saved) {
        share = Math.max(0.0, Math.min(MAX, saved));
        estimated = true;
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
