package dev.sluice.core.retry;

import java.time.Duration;

/**
 * The retries one provider scope may spend: a fraction of its recent first attempts plus a small
 * floor per second, over a sliding window. In a storm of 429s the retries stay a bounded fraction
 * of the traffic instead of multiplying it. Thread-safe.
 */
public final class RetryBudget {

    private static final int SLOTS = 10;

    private final double ratio;
    private final double floorPerSecond;
    private final long slotNanos;
    private final long windowNanos;
    private final long[] firstAttempts = new long[SLOTS];
    private final long[] retries = new long[SLOTS];
    private final long[] slotStart = new long[SLOTS];

    public RetryBudget(double ratio, double floorPerSecond, Duration window) {
        this.ratio = ratio;
        this.floorPerSecond = floorPerSecond;
        this.windowNanos = window.toNanos();
        this.slotNanos = Math.max(1, windowNanos / SLOTS);
    }

    /** Counts a first attempt (deposits {@code ratio} of a retry). */
    public synchronized void firstAttempt(long nowNanos) {
        firstAttempts[slot(nowNanos)]++;
    }

    /** Takes one retry from the budget if there is one left; false means: do not retry. */
    public synchronized boolean tryRetry(long nowNanos) {
        int current = slot(nowNanos);
        if (retries(nowNanos) + 1 > allowed(nowNanos)) {
            return false;
        }
        retries[current]++;
        return true;
    }

    /** Retries still allowed now. */
    public synchronized double remaining(long nowNanos) {
        return Math.max(0, allowed(nowNanos) - retries(nowNanos));
    }

    private double allowed(long nowNanos) {
        long firsts = 0;
        for (int i = 0; i < SLOTS; i++) {
            if (live(i, nowNanos)) {
                firsts += firstAttempts[i];
            }
        }
        return ratio * firsts + floorPerSecond * windowNanos / 1e9;
    }

    private long retries(long nowNanos) {
        long total = 0;
        for (int i = 0; i < SLOTS; i++) {
            if (live(i, nowNanos)) {
                total += retries[i];
            }
        }
        return total;
    }

    private boolean live(int i, long nowNanos) {
        return nowNanos - slotStart[i] < windowNanos;
    }

    private int slot(long nowNanos) {
        long index = Math.floorDiv(nowNanos, slotNanos);
        int i = (int) Math.floorMod(index, SLOTS);
        long start = index * slotNanos;
        if (slotStart[i] != start) {
            slotStart[i] = start;
            firstAttempts[i] = 0;
            retries[i] = 0;
        }
        return i;
    }
}
