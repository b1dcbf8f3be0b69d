package dev.sluice.core.quota;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Room a token bucket lent in advance to the governor's lock-free lane: admissions take it with
 * one compare-and-set, without the lock. Striped by thread, like a {@code LongAdder}, so callers
 * on different cores do not fight over one cache line; each stripe sits on its own lines, with the
 * time of its last loan.
 *
 * <p>Lent room has already left the bucket's level, so whatever the lane takes was room when it
 * was lent: the lane can never admit beyond the bucket. The governor takes back whatever is
 * unused before any decision that needs the exact room (see {@link TokenBucket}).
 */
public final class LaneCredit {

    /** Stripes per bucket; a power of two. Threads pick one by id, so consecutive threads differ. */
    public static final int STRIPES = 8;

    /**
     * Longs per stripe: 128 bytes, so two stripes share neither a cache line nor the pair of
     * lines the processor fetches together.
     */
    private static final int SPACING = 16;

    /** Per stripe: at {@code s * SPACING} the room held, next to it the time of the last loan. */
    private final AtomicLongArray cells = new AtomicLongArray(STRIPES * SPACING);

    LaneCredit() {}

    /** Takes {@code amount} from the stripe if it holds that much; any thread, no lock. */
    public boolean tryTake(int stripe, long amount) {
        int i = stripe * SPACING;
        long held;
        do {
            held = cells.get(i);
            if (held < amount) {
                return false;
            }
        } while (!cells.compareAndSet(i, held, held - amount));
        return true;
    }

    /** Puts room back into a stripe: a lane admission that could not take every bucket undoes its takes. */
    public void putBack(int stripe, long amount) {
        cells.getAndAdd(stripe * SPACING, amount);
    }

    /**
     * When the stripe last got a loan (monotonic nanos): a time at which the room it holds was
     * there, so a lane admission records it as its admission time.
     */
    public long lentAtNanos(int stripe) {
        return cells.get(stripe * SPACING + 1);
    }

    /** Adds a loan to a stripe. Under the governor's lock. */
    void lend(int stripe, long amount, long nowNanos) {
        int i = stripe * SPACING;
        if (nowNanos - cells.get(i + 1) > 0) {
            cells.set(i + 1, nowNanos);
        }
        cells.getAndAdd(i, amount);
    }

    /** What one stripe holds now. */
    long held(int stripe) {
        return cells.get(stripe * SPACING);
    }

    /** Empties every stripe and returns what they held. Under the governor's lock. */
    long takeAll() {
        long total = 0;
        for (int s = 0; s < STRIPES; s++) {
            int i = s * SPACING;
            if (cells.get(i) != 0) {
                total += cells.getAndSet(i, 0);
            }
        }
        return total;
    }

    /** What every stripe holds now (racy: for accounting views). */
    long unused() {
        long total = 0;
        for (int s = 0; s < STRIPES; s++) {
            total += cells.get(s * SPACING);
        }
        return total;
    }
}
