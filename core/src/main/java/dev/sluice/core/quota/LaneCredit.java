package dev.sluice.core.quota;

import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Room a token bucket lent in advance to the governor's lock-free lane: admissions take it with
 * one compare-and-set, without the lock. Striped by thread, like a {@code LongAdder}, so callers
 * on different cores do not fight over one cache line; each stripe sits on its own lines, with the
 * time of its last loan; a stripe's cell is made by its first loan.
 *
 * <p>Lent room has already left the bucket's level, so whatever the lane takes was room when it
 * was lent: the lane can never admit beyond the bucket. The governor takes back whatever is
 * unused before any decision that needs the exact room (see {@link TokenBucket}).
 */
public final class LaneCredit {

    /** Stripes per bucket; a power of two. Threads pick one by id, so consecutive threads differ. */
    public static final int STRIPES = 8;

    /**
     * Longs per stripe's cell: 128 bytes, the room and the loan time in the middle, so two cells
     * share neither a cache line nor the pair of lines the processor fetches together.
     */
    private static final int SPACING = 16;

    private static final int ROOM = SPACING / 2 - 1;
    private static final int LENT_AT = ROOM + 1;
    private static final int LENT_MOMENT = ROOM + 2;

    /**
     * Per stripe, its cell, created by the first loan to that stripe (under the governor's lock):
     * a bucket only one thread admits on keeps one cell, not eight. Every per-tenant and per-key
     * bucket lends, so with 10,000 tenants eight padded cells each were 11 MB of heap. A stripe
     * without a cell holds nothing, and a lane admission on it goes to the lock, which lends.
     */
    private final AtomicReferenceArray<AtomicLongArray> cells = new AtomicReferenceArray<>(STRIPES);

    LaneCredit() {}

    /** Takes {@code amount} from the stripe if it holds that much; any thread, no lock. */
    public boolean tryTake(int stripe, long amount) {
        AtomicLongArray cell = cells.get(stripe);
        if (cell == null) {
            return false;
        }
        long held;
        do {
            held = cell.get(ROOM);
            if (held < amount) {
                return false;
            }
        } while (!cell.compareAndSet(ROOM, held, held - amount));
        return true;
    }

    /** Puts room back into a stripe: a lane admission that could not take every bucket undoes its takes. */
    public void putBack(int stripe, long amount) {
        // the stripe has a cell: the room came from it, and cells are never removed
        cells.get(stripe).getAndAdd(ROOM, amount);
    }

    /**
     * When the stripe last got a loan (monotonic nanos): a time at which the room it holds was
     * there, so a lane admission records it as its admission time.
     */
    public long lentAtNanos(int stripe) {
        AtomicLongArray cell = cells.get(stripe);
        return cell == null ? 0 : cell.get(LENT_AT);
    }

    /**
     * The bucket's moment (see {@link TokenBucket#take}) of the stripe's last loan, earlier than the
     * lock holder registering any lane admission made since it was read: what a refund of a lane
     * admission hands back.
     */
    public long lentMoment(int stripe) {
        AtomicLongArray cell = cells.get(stripe);
        return cell == null ? 0 : cell.get(LENT_MOMENT);
    }

    /** Adds a loan to a stripe, made at the bucket's {@code moment}. Under the governor's lock. */
    void lend(int stripe, long amount, long nowNanos, long moment) {
        AtomicLongArray cell = cells.get(stripe);
        if (cell == null) {
            cell = new AtomicLongArray(SPACING);
            cell.set(LENT_AT, nowNanos);
            cells.set(stripe, cell);
        } else if (nowNanos - cell.get(LENT_AT) > 0) {
            cell.set(LENT_AT, nowNanos);
        }
        cell.set(LENT_MOMENT, moment);
        cell.getAndAdd(ROOM, amount);
    }

    /** What one stripe holds now. */
    long held(int stripe) {
        AtomicLongArray cell = cells.get(stripe);
        return cell == null ? 0 : cell.get(ROOM);
    }

    /** Empties every stripe and returns what they held. Under the governor's lock. */
    long takeAll() {
        long total = 0;
        for (int s = 0; s < STRIPES; s++) {
            AtomicLongArray cell = cells.get(s);
            if (cell != null && cell.get(ROOM) != 0) {
                total += cell.getAndSet(ROOM, 0);
            }
        }
        return total;
    }

    /** What every stripe holds now (racy: for accounting views). */
    long unused() {
        long total = 0;
        for (int s = 0; s < STRIPES; s++) {
            AtomicLongArray cell = cells.get(s);
            if (cell != null) {
                total += cell.get(ROOM);
            }
        }
        return total;
    }
}
