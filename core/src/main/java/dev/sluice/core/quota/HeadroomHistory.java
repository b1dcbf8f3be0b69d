package dev.sluice.core.quota;

/**
 * The least headroom (what a token bucket's level lacked of its ceiling) since a given moment, so a
 * refund gives back only what the refill has not made up already.
 *
 * <p>Why a refund needs it: a call reserved {@code d} more than it used. Had it reserved only what
 * it used, the level would have run {@code d} higher from its admission on, until that higher
 * level met the ceiling, where refill stops; from then on the two levels are closer, and they are
 * the same once the actual level reached the ceiling. So the exact refund is {@code d} less what
 * the higher level lost at the ceiling: {@code min(d, least headroom since the admission)}. Adding
 * all of {@code d} back, as the bucket did, created room after a refill that the provider does not
 * have, and the next call met a 429.
 *
 * <p>Moments are the bucket's own sequence numbers, not clock readings: many operations share one
 * reading (the governor's stale fast path, one lock hold that settles and admits), and a refund
 * must tell an observation made just before its reservation from one made just after.
 *
 * <p>The level only rises by refill between operations, so its highest points are the refilled
 * levels each operation sees first, and the levels after refunds. The history keeps, of those
 * observations, only the ones a later one does not undercut (a stack whose headroom grows from the
 * oldest to the newest): the least headroom since {@code m} is then the oldest one kept at or after
 * {@code m}. Kept to {@link #MOST} entries: when full, the two neighbours closest in headroom become
 * one, with the older (lower) headroom and the newer moment, which can only make a refund smaller.
 *
 * <p>Guarded by the governor's lock, like its bucket.
 */
final class HeadroomHistory {

    /** Entries kept at most: enough for the record highs of a saturated bucket, 272 bytes at most. */
    static final int MOST = 16;

    /** Interleaved pairs: the moment, then the headroom's bits. */
    private long[] entries = new long[2];

    private int size;

    /** The level lacked {@code headroom} of the ceiling at {@code moment} (later than every earlier one). */
    void observe(long moment, double headroom) {
        while (size > 0 && headroomAt(size - 1) >= headroom) {
            size--; // a newer observation with less headroom answers every question it answered
        }
        if (size == entries.length / 2) {
            if (size < MOST) {
                long[] grown = new long[Math.min(2 * MOST, entries.length * 2)];
                System.arraycopy(entries, 0, grown, 0, entries.length);
                entries = grown;
            } else {
                mergeClosestNeighbours();
            }
        }
        entries[2 * size] = moment;
        entries[2 * size + 1] = Double.doubleToRawLongBits(headroom);
        size++;
    }

    /** The least headroom observed at or after {@code moment}; {@code +Infinity} when none was. */
    double leastSince(long moment) {
        for (int i = 0; i < size; i++) {
            if (entries[2 * i] >= moment) {
                return headroomAt(i);
            }
        }
        return Double.POSITIVE_INFINITY;
    }

    /**
     * A refund of {@code by} for a reservation made at {@code moment} raised the level: had the call
     * reserved only what it used, the level would have been higher by {@code by} at every moment
     * since it was first observed after (the refund is at most the least headroom since), so every
     * later headroom is that much less. Without this, two refunds could each take the same headroom.
     */
    void levelRaisedSince(long moment, double by) {
        int first = 0;
        while (first < size && entries[2 * first] < moment) {
            first++;
        }
        if (first == size) {
            return;
        }
        for (int i = first; i < size; i++) {
            entries[2 * i + 1] = Double.doubleToRawLongBits(Math.max(0, headroomAt(i) - by));
        }
        // older entries the lowered ones now undercut answer nothing any more
        int kept = first;
        while (kept > 0 && headroomAt(kept - 1) >= headroomAt(first)) {
            kept--;
        }
        if (kept < first) {
            System.arraycopy(entries, 2 * first, entries, 2 * kept, 2 * (size - first));
            size -= first - kept;
        }
    }

    /** The ceiling fell by {@code by}: every headroom observed is that much less (never below 0). */
    void ceilingLowered(double by) {
        for (int i = 0; i < size; i++) {
            entries[2 * i + 1] = Double.doubleToRawLongBits(Math.max(0, headroomAt(i) - by));
        }
    }

    /** Entries kept now (for tests). */
    int size() {
        return size;
    }

    private double headroomAt(int i) {
        return Double.longBitsToDouble(entries[2 * i + 1]);
    }

    /**
     * Makes room for one entry: the neighbours {@code i, i + 1} whose headrooms differ least become
     * one with {@code i}'s headroom and {@code i + 1}'s moment. A question about a moment between theirs
     * then gets the older, smaller headroom: a smaller refund, never a larger one.
     */
    private void mergeClosestNeighbours() {
        int closest = 0;
        double gap = Double.POSITIVE_INFINITY;
        for (int i = 0; i + 1 < size; i++) {
            double g = headroomAt(i + 1) - headroomAt(i);
            if (g < gap) {
                gap = g;
                closest = i;
            }
        }
        entries[2 * closest + 3] = entries[2 * closest + 1]; // the newer entry takes the older headroom
        System.arraycopy(entries, 2 * closest + 2, entries, 2 * closest, 2 * (size - closest - 1));
        size--;
    }
}
