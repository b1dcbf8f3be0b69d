package dev.sluice.core.telemetry;

import java.util.concurrent.atomic.LongAdder;

/**
 * Admission waits in logarithmic buckets (each a factor of about 1.19 wide, from 10 µs to about a
 * day), so percentiles cost a fixed, small amount of memory and stay within a few percent.
 * Thread-safe, lock-free to record.
 */
public final class WaitHistogram {

    private static final double BASE_NANOS = 10_000;
    private static final double GROWTH = Math.pow(2, 0.25);
    private static final int BUCKETS = 160;

    private final LongAdder[] counts = new LongAdder[BUCKETS + 1];
    private final LongAdder total = new LongAdder();

    public WaitHistogram() {
        for (int i = 0; i < counts.length; i++) {
            counts[i] = new LongAdder();
        }
    }

    public void record(long nanos) {
        counts[index(nanos)].increment();
        total.increment();
    }

    private static int index(long nanos) {
        if (nanos <= BASE_NANOS) {
            return 0;
        }
        int i = 1 + (int) (Math.log(nanos / BASE_NANOS) / Math.log(GROWTH));
        return Math.min(BUCKETS, i);
    }

    private static double upperBound(int index) {
        return BASE_NANOS * Math.pow(GROWTH, index);
    }

    /** Waits recorded. */
    public long count() {
        return total.sum();
    }

    /** The wait at quantile q (0..1), in nanoseconds (upper bound of its bucket); 0 when empty. */
    public long percentileNanos(double q) {
        return percentileNanos(q, 0);
    }

    /**
     * The wait at quantile q, counting {@code zeros} more waits of nothing that were not recorded
     * (calls admitted at once, counted elsewhere so the fast path stays cheap).
     */
    public long percentileNanos(double q, long zeros) {
        long n = zeros;
        long[] snapshot = new long[counts.length];
        for (int i = 0; i < counts.length; i++) {
            snapshot[i] = counts[i].sum();
            n += snapshot[i];
        }
        if (n == 0) {
            return 0;
        }
        long rank = (long) Math.ceil(q * n);
        if (rank <= zeros) {
            return 0;
        }
        long seen = zeros;
        for (int i = 0; i < snapshot.length; i++) {
            seen += snapshot[i];
            if (seen >= rank) {
                return (long) upperBound(i);
            }
        }
        return (long) upperBound(BUCKETS);
    }
}
