package dev.sluice.core.quota;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * How many events happened over the last few seconds, per minute: a ring of one-second counters,
 * lock-free. Approximate by design (a counter reset by one thread may lose an event another thread
 * adds in the same instant): it sizes a pace, it does not count money.
 */
final class RecentRate {

    private static final int SECONDS = 10;
    private static final long SECOND = 1_000_000_000L;

    private final AtomicLongArray counts = new AtomicLongArray(SECONDS);
    /** The second each slot counts, +1 (0: never used). */
    private final AtomicLongArray slotSecond = new AtomicLongArray(SECONDS);

    private volatile long firstNanos = Long.MIN_VALUE;

    void record(long nowNanos) {
        if (firstNanos == Long.MIN_VALUE) {
            firstNanos = nowNanos;
        }
        long second = Math.floorDiv(nowNanos, SECOND);
        int i = (int) Math.floorMod(second, SECONDS);
        long seen = slotSecond.get(i);
        if (seen != second + 1 && slotSecond.compareAndSet(i, seen, second + 1)) {
            counts.set(i, 0);
        }
        counts.incrementAndGet(i);
    }

    /** Events per minute over the last {@value #SECONDS} seconds, or since the first when that is shorter. */
    double perMinute(long nowNanos) {
        if (firstNanos == Long.MIN_VALUE) {
            return 0;
        }
        long second = Math.floorDiv(nowNanos, SECOND);
        long total = 0;
        for (int i = 0; i < SECONDS; i++) {
            long s = slotSecond.get(i) - 1;
            if (s > second - SECONDS && s <= second) {
                total += counts.get(i);
            }
        }
        double span = Math.min(SECONDS, Math.max(1.0, (double) (nowNanos - firstNanos) / SECOND));
        return total * 60.0 / span;
    }
}
