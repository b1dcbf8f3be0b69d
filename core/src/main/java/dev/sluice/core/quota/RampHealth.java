package dev.sluice.core.quota;

import java.util.Arrays;
import java.util.concurrent.locks.ReentrantLock;

/**
 * What a ramp watches over its last interval: the calls admitted, the provider's answers and how
 * many were 429s, how long answers took and how long calls waited in Sluice's queue. Counts are
 * kept in time slots (twenty per interval, over the last two intervals); times in a ring of the latest samples, enough for a
 * 95th percentile. Written by callers' threads as calls go and come back, read by the governor's
 * timer; a short lock of its own, never held while waiting.
 */
public final class RampHealth {

    /** Slots of one interval; twice as many are kept, for the interval before the last. */
    static final int SLOTS_PER_INTERVAL = 20;

    /** The slots of the last quarter interval: how fast calls go now. */
    static final int LATELY_SLOTS = SLOTS_PER_INTERVAL / 4;

    /** Two intervals of full slots, and the current one filling. */
    static final int SLOTS = 2 * SLOTS_PER_INTERVAL + 1;

    static final int SAMPLES = 512;
    /** Fewer answers or samples than this over an interval say nothing about health. */
    static final int MIN_SAMPLES = 5;

    private final ReentrantLock lock = new ReentrantLock();
    private final long slotNanos;
    private final long[] slotIndex = new long[SLOTS];
    private final long[] admitted = new long[SLOTS];
    private final long[] answers = new long[SLOTS];
    private final long[] refused = new long[SLOTS];
    private final long[] latencyAt = new long[SAMPLES];
    private final long[] latency = new long[SAMPLES];
    private int latencies;
    private final long[] waitAt = new long[SAMPLES];
    private final long[] wait = new long[SAMPLES];
    private int waits;

    RampHealth(long intervalNanos) {
        this.slotNanos = Math.max(1, intervalNanos / SLOTS_PER_INTERVAL);
        Arrays.fill(slotIndex, Long.MIN_VALUE);
    }

    /** A call was admitted after waiting {@code waitedNanos}; a wait the ramp itself caused is not counted as one. */
    public void admitted(long waitedNanos, boolean rampHeldIt, long nowNanos) {
        lock.lock();
        try {
            admitted[slot(nowNanos)]++;
            if (!rampHeldIt) {
                int i = waits++ % SAMPLES;
                waitAt[i] = nowNanos;
                wait[i] = waitedNanos;
            }
        } finally {
            lock.unlock();
        }
    }

    /** The provider answered an attempt with {@code status} after {@code latencyNanos}. */
    public void answered(int status, long latencyNanos, long nowNanos) {
        lock.lock();
        try {
            int s = slot(nowNanos);
            answers[s]++;
            if (status == 429) {
                refused[s]++;
            }
            int i = latencies++ % SAMPLES;
            latencyAt[i] = nowNanos;
            latency[i] = latencyNanos;
        } finally {
            lock.unlock();
        }
    }

    /** The slot of this moment, emptied when it is reused for a later stretch of time. Lock held. */
    private int slot(long nowNanos) {
        long index = Math.floorDiv(nowNanos, slotNanos);
        int s = (int) Math.floorMod(index, (long) SLOTS);
        if (slotIndex[s] != index) {
            slotIndex[s] = index;
            admitted[s] = 0;
            answers[s] = 0;
            refused[s] = 0;
        }
        return s;
    }

    /** What the last interval looked like at {@code nowNanos}. */
    public Window over(long nowNanos) {
        lock.lock();
        try {
            long current = Math.floorDiv(nowNanos, slotNanos);
            long a = 0;
            long lately = 0;
            long before = 0;
            long n = 0;
            long r = 0;
            for (int s = 0; s < SLOTS; s++) {
                long age = current - slotIndex[s];
                if (slotIndex[s] == Long.MIN_VALUE || age < 1 || age >= SLOTS) {
                    continue; // the slot filling now is not a whole slot yet
                }
                if (age <= SLOTS_PER_INTERVAL) {
                    a += admitted[s];
                    if (age <= LATELY_SLOTS) {
                        lately += admitted[s];
                    }
                    n += answers[s];
                    r += refused[s];
                } else {
                    before += admitted[s];
                }
            }
            double seconds = slotNanos * SLOTS_PER_INTERVAL / 1e9;
            long since = nowNanos - slotNanos * (SLOTS_PER_INTERVAL + 1);
            return new Window(
                    a / seconds,
                    lately / (slotNanos * LATELY_SLOTS / 1e9),
                    before / seconds,
                    n,
                    r,
                    percentile(latencyAt, latency, latencies, since),
                    percentile(waitAt, wait, waits, since));
        } finally {
            lock.unlock();
        }
    }

    /** The 95th percentile of the samples taken since {@code since}; -1 with too few. Lock held. */
    private static long percentile(long[] at, long[] values, int written, long since) {
        int n = Math.min(written, SAMPLES);
        long[] recent = new long[n];
        int k = 0;
        for (int i = 0; i < n; i++) {
            if (at[i] - since >= 0) {
                recent[k++] = values[i];
            }
        }
        if (k < MIN_SAMPLES) {
            return -1;
        }
        Arrays.sort(recent, 0, k);
        return recent[(int) Math.ceil(0.95 * k) - 1];
    }

    /** The last interval, as the ramp reads it. */
    public static final class Window {
        /** Calls admitted a second, on average over the interval. */
        public final double admittedPerSecond;
        /** Calls admitted a second over the last quarter interval. */
        public final double latelyPerSecond;
        /** Calls admitted a second over the interval before it. */
        public final double admittedBeforePerSecond;

        public final long answers;
        /** Answers that were 429s. */
        public final long refused;
        /** 95th percentile of answer times; -1 with too few answers. */
        public final long latencyP95Nanos;
        /** 95th percentile of queue waits not caused by the ramp; -1 with too few. */
        public final long waitP95Nanos;

        Window(
                double admittedPerSecond,
                double latelyPerSecond,
                double admittedBeforePerSecond,
                long answers,
                long refused,
                long latencyP95Nanos,
                long waitP95Nanos) {
            this.admittedPerSecond = admittedPerSecond;
            this.latelyPerSecond = latelyPerSecond;
            this.admittedBeforePerSecond = admittedBeforePerSecond;
            this.answers = answers;
            this.refused = refused;
            this.latencyP95Nanos = latencyP95Nanos;
            this.waitP95Nanos = waitP95Nanos;
        }

        /** The share of answers that were 429s; 0 with too few answers to tell. */
        public double refusedShare() {
            return answers < MIN_SAMPLES ? 0 : (double) refused / answers;
        }
    }
}
