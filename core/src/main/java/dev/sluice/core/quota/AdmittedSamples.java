package dev.sluice.core.quota;

/**
 * Samples of a learned bucket's admitted total over time (see {@link Bucket#admittedTotal}), taken
 * just before a reservation at most every {@link #SAMPLE_NANOS}: a ring of the last {@link
 * #SAMPLES}, so an answer's figures can be aged by what was admitted after the provider counted
 * its call ({@link AnswerAge}). 1 KiB, made by a learned bucket's first reservation. Guarded by the
 * governor's lock, like its bucket.
 */
final class AdmittedSamples {

    private static final int SAMPLES = 64;
    private static final long SAMPLE_NANOS = 20_000_000L;

    private final long[] nanos = new long[SAMPLES];
    private final long[] totals = new long[SAMPLES];
    private int next;

    /** Samples {@code total} at {@code nowNanos}, unless the last sample is more recent than a period. */
    void sample(long total, long nowNanos) {
        int last = Math.floorMod(next - 1, SAMPLES);
        if (nanos[last] != 0 && nowNanos - nanos[last] < SAMPLE_NANOS) {
            return;
        }
        nanos[next] = nowNanos == 0 ? 1 : nowNanos;
        totals[next] = total;
        next = (next + 1) % SAMPLES;
    }

    /**
     * The total at {@code at}: the first sample at or after it, or {@code now} when none is that
     * recent. Errs towards a later time, so a difference taken from it errs towards less.
     */
    long totalAt(long at, long now) {
        long best = now;
        for (int i = 0; i < SAMPLES; i++) {
            int slot = Math.floorMod(next - 1 - i, SAMPLES);
            if (nanos[slot] == 0) {
                break;
            }
            if (nanos[slot] - at < 0) {
                break; // older than asked: the newer sample already found is the answer
            }
            best = totals[slot];
        }
        return best;
    }
}
