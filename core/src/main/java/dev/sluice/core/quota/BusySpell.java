package dev.sluice.core.quota;

/**
 * The figures a provider gave for a learned bucket while Sluice had calls in flight there: a busy
 * spell starts when nothing is in flight and ends when the last call out is answered or ends. Its
 * end raises the room to the least of them (see {@link Bucket#endBusySpell}): by then the provider
 * has counted every call it was sent, in whatever order they reached it. Guarded by the governor's
 * lock, like its bucket.
 */
final class BusySpell {

    /** The least figure in this spell; {@link Long#MAX_VALUE}: none. */
    private long leastFigure = Long.MAX_VALUE;

    /**
     * The same, as it stands at any later moment t: {@code remaining + refill(t - counted) - what was
     * admitted after it}, kept as the part that does not depend on t, so the least of several
     * figures is the least of these keys.
     */
    private double leastAgedFigure = Double.POSITIVE_INFINITY;

    /** What the calls answered with a figure in this spell reserved here. */
    private long answered;

    /** The bucket's admitted total when the spell started. */
    private long admittedAtStart;

    /**
     * Notes a figure: {@code remaining}, counted at {@code countedNanos} when {@code countedMark}
     * had been admitted here in all, in the answer to a call that reserved {@code answeredAmount}.
     */
    void figure(long remaining, long countedMark, long countedNanos, long answeredAmount, double refillPerNano) {
        leastFigure = Math.min(leastFigure, remaining);
        double key = remaining + (double) countedMark - refillPerNano * countedNanos;
        leastAgedFigure = Math.min(leastAgedFigure, key);
        answered += Math.max(0, answeredAmount);
    }

    /** Whether the spell has a figure. */
    boolean hasFigure() {
        return leastFigure != Long.MAX_VALUE;
    }

    /**
     * Ends the spell and starts the next: the room its figures say is left now, or NaN when it had
     * none. When every call admitted in the spell answered with a figure, the least of them; else
     * the least as it stands now, the refill since added and what was admitted after it taken off.
     */
    double end(long admittedTotal, double refillPerNano, long nowNanos) {
        long least = leastFigure;
        double aged = leastAgedFigure + refillPerNano * nowNanos - admittedTotal;
        boolean allAnswered = answered >= admittedTotal - admittedAtStart;
        restart(admittedTotal);
        if (least == Long.MAX_VALUE) {
            return Double.NaN;
        }
        return allAnswered ? least : Math.min(least, aged);
    }

    /** Nothing is in flight: what is admitted from now on belongs to the next spell. */
    void restart(long admittedTotal) {
        leastFigure = Long.MAX_VALUE;
        leastAgedFigure = Double.POSITIVE_INFINITY;
        answered = 0;
        admittedAtStart = admittedTotal;
    }
}
