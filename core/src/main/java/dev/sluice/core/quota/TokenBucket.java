package dev.sluice.core.quota;

/**
 * A token bucket with continuous refill: capacity per window, refilled smoothly, so a per-minute
 * limit is also smooth within the minute (as providers enforce it). The bucket holds at most the
 * limit's burst: the capacity, unless a smaller burst is configured or learned.
 * The level is kept as a double; integer reservations and refunds restore it exactly.
 *
 * <p>A bucket that mirrors a provider's limit refills to a little less than the capacity: the
 * provider counts a call when it arrives, up to {@link #TRANSIT_ALLOWANCE_NANOS} after Sluice
 * admitted it, and by different delays for different calls. Calls admitted a full interval apart
 * can arrive closer together (the network; an HTTP client's own queue, such as OkHttp's five calls
 * per host), so a mirror that is exactly the provider's bucket meets a 429 now and then at
 * saturation (seen against the simulator: 2 to 7 % of requests on loopback). A stream that
 * fits a bucket of burst {@code b - rate * delay} still fits the burst {@code b} after any delay up
 * to {@code delay}, so the mirror keeps that much back; the rate, and so the throughput, is
 * unchanged. It starts at that ceiling too, and when the level is at the ceiling a call of up to
 * the whole burst still fits.
 *
 * <p>It lends room to the governor's lock-free lane ({@link LaneCredit}): lent room leaves the
 * level at once, and the level never refills above the ceiling less what is lent, so the level
 * plus the room still lent behaves as one token bucket of the ceiling, whichever way calls are
 * admitted. Every method that answers "how much room" takes back what the lane has not used
 * first, so slow-path decisions and status views see the exact room.
 *
 * <p>A call that used less than it reserved gets back only what the refill has not made up since
 * its reservation ({@link HeadroomHistory}): once the level would have reached the ceiling without
 * the unused part, the provider has no more room than the bucket. {@link #take} returns the take's
 * moment for that, and each loan to the lane records its own for the lane's admissions.
 */
final class TokenBucket extends Bucket implements LaneLender {

    /** The largest delay between admission and the provider counting the call that a mirror absorbs. */
    static final long TRANSIT_ALLOWANCE_NANOS = 250_000_000L;

    private double level;
    private long lastRefillNanos;
    /** Capacity over window, kept so a refill costs one multiplication. */
    private double ratePerNano;
    /** What Sluice refills of that rate: 1 less the share others take (1 when Sluice is alone). */
    private double ownShare = 1.0;
    /** What refills and refunds fill up to: the burst, less the transit allowance of a mirror. */
    private double ceiling;

    /** Largest share of the burst one stripe of lent room holds: 1/16, so lending stays a detail. */
    private static final long LEND_FRACTION = 16;

    /** Room lent to the lane, created on the first loan; written under the lock, read by the lane. */
    private volatile LaneCredit lent;
    /** Lent and neither taken back nor registered as a lane admission (guarded by the lock). */
    private long lentOut;

    /** See {@link #figureCorrections()}. */
    private double figureCorrections;

    /**
     * What the level (with the room lent) lacked of the ceiling at recent moments: a refund gives
     * back no more than the least of it since the reservation, as the refill made up the rest.
     */
    private final HeadroomHistory headroom = new HeadroomHistory();

    /** Numbers the moments {@link #headroom} knows, and the takes and loans refunds ask about. */
    private long moment;

    TokenBucket(Limit limit, String scopeValue, long nowNanos) {
        super(limit, scopeValue);
        this.lastRefillNanos = nowNanos;
        this.ratePerNano = (double) limit.capacity() / limit.windowNanos();
        this.ceiling = limit.refillCeiling();
        this.level = ceiling;
    }

    /** The level as room: a bucket at its ceiling holds the whole burst for one call. */
    private double visibleLevel() {
        return level >= ceiling - 1e-9 ? Math.max(level, limit().burst()) : level;
    }

    private double ratePerNano() {
        return ratePerNano * ownShare;
    }

    @Override
    public double refillPerNano() {
        return ratePerNano();
    }

    @Override
    public void setExternalShare(double share, long nowNanos, long nowMillis) {
        refillAndTakeBack(nowNanos); // what refilled so far, at the share that held
        ownShare = 1.0 - Math.max(0.0, Math.min(share, ExternalShare.MAX));
    }

    /** What the level may refill to: the ceiling, less what is lent to the lane. */
    private double cap() {
        return ceiling - lentOut;
    }

    private void refill(long nowNanos) {
        long elapsed = nowNanos - lastRefillNanos;
        if (elapsed > 0) {
            double added = elapsed * ratePerNano();
            double cap = cap();
            if (level < cap) {
                level = Math.min(cap, level + added);
            }
            refillReserves(added);
            lastRefillNanos = nowNanos;
            // the highest the level has been since the last operation
            headroom.observe(++moment, Math.max(0, cap - level));
        }
    }

    /** Refills, then takes back every stripe's unused lent room: the exact room, for decisions. */
    private void refillAndTakeBack(long nowNanos) {
        refill(nowNanos);
        LaneCredit credit = lent;
        if (credit != null && lentOut != 0) {
            long back = credit.takeAll();
            // level + lentOut is unchanged, so the cap the refill just applied still holds
            level += back;
            lentOut -= back;
            countAdmitted(-back, nowNanos); // lent, never used: not admitted after all
        }
    }

    @Override
    public long room(long nowNanos, long nowMillis) {
        refillAndTakeBack(nowNanos);
        // a hair of tolerance so that floating refill never hides a whole token
        return (long) Math.floor(visibleLevel() + 1e-9);
    }

    @Override
    public long roomAsCounted(long nowNanos, long nowMillis) {
        return (long) Math.floor(exactRoomAsCounted(nowNanos, nowMillis) + 1e-9);
    }

    @Override
    double exactRoomAsCounted(long nowNanos, long nowMillis) {
        refillAndTakeBack(nowNanos);
        double allowance = level >= ceiling - 1e-9 ? 0 : limit().burst() - ceiling;
        return visibleLevel() + allowance;
    }

    @Override
    double figureCorrections() {
        return figureCorrections;
    }

    @Override
    double exactRoom(long nowNanos, long nowMillis) {
        refillAndTakeBack(nowNanos);
        return visibleLevel();
    }

    /** Returns the take's moment, which a refund hands back (see {@link #giveBack}). */
    @Override
    public long take(long amount, long nowNanos, long nowMillis) {
        refill(nowNanos);
        level = Math.max(level - amount, debtFloor());
        return ++moment;
    }

    @Override
    public boolean tracksTakes() {
        return true;
    }

    /**
     * How far below zero the level may go. A configured limit is a rule: what a call used is owed
     * in full. A learned one is what Sluice has seen (a call larger than its burst may take it,
     * {@link Limit#roomNeededFor}): its debt stops at one window's capacity, so it delays the scope
     * by at most a window and never locks it out.
     */
    private double debtFloor() {
        return learned() ? -limit().capacity() : Double.NEGATIVE_INFINITY;
    }

    @Override
    public void giveBack(long amount, long takenAt, long nowNanos, long nowMillis) {
        refill(nowNanos);
        // only what the refill has not made up since the take (HeadroomHistory says why)
        double back = Math.min(amount, Math.min(cap() - level, headroom.leastSince(takenAt)));
        if (back > 0) {
            level += back;
            headroom.levelRaisedSince(takenAt, back);
            headroom.observe(++moment, cap() - level);
        }
    }

    @Override
    public void takeMore(long amount, long nowNanos, long nowMillis) {
        refill(nowNanos);
        level = Math.max(level - amount, debtFloor());
    }

    @Override
    public long nanosUntilRoom(long amount, long nowNanos, long nowMillis) {
        if (amount > limit().burst()) {
            return NEVER;
        }
        refillAndTakeBack(nowNanos);
        double missing = Math.min(amount, ceiling) - level - 1e-9;
        if (amount - visibleLevel() <= 1e-9 || missing <= 0) {
            return 0;
        }
        return (long) Math.ceil(missing / ratePerNano());
    }

    @Override
    long nanosUntilRoomBesideReserves(int tenant, long amount, long nowNanos, long nowMillis) {
        // Room and the other reserves both grow with time; reserves stop at their caps. Walk the
        // pieces where the set of still-filling reserves is constant.
        double rate = ratePerNano();
        double level = this.level;
        double[] held = new double[reserves.size()];
        for (int i = 0; i < held.length; i++) {
            held[i] = i == tenant ? 0 : Math.min(reserves.held(i), reserves.cap(i));
        }
        double elapsed = 0;
        // one more piece than reserves: the level reaching the ceiling, where the capacity shows
        for (int step = 0; step <= held.length + 2; step++) {
            double heldTotal = 0;
            double fillingShare = 0;
            double nextCapIn = Double.MAX_VALUE;
            for (int i = 0; i < held.length; i++) {
                if (i == tenant) {
                    continue;
                }
                heldTotal += held[i];
                double cap = reserves.cap(i);
                if (held[i] < cap && reserves.share(i) > 0) {
                    fillingShare += reserves.share(i);
                    nextCapIn = Math.min(nextCapIn, (cap - held[i]) / (reserves.share(i) * rate));
                }
            }
            boolean atCeiling = level >= ceiling - 1e-9;
            double deficit = amount + heldTotal - (atCeiling ? Math.max(level, limit().burst()) : level);
            if (deficit <= 1e-9) {
                return (long) Math.ceil(elapsed);
            }
            double closing = atCeiling ? 0 : rate * (1 - fillingShare);
            if (closing <= 0 && nextCapIn == Double.MAX_VALUE) {
                return NEVER;
            }
            double dt = closing > 0
                    ? Math.min(Math.min(deficit / closing, (ceiling - level) / rate), nextCapIn)
                    : nextCapIn;
            elapsed += dt;
            level = Math.min(ceiling, level + rate * dt);
            for (int i = 0; i < held.length; i++) {
                if (i != tenant) {
                    held[i] = Math.min(reserves.cap(i), held[i] + reserves.share(i) * rate * dt);
                }
            }
        }
        return (long) Math.ceil(elapsed);
    }

    @Override
    public void lowerRoomTo(long remaining, long nowNanos, long nowMillis) {
        lowerRoomTo((double) remaining, nowNanos, nowMillis);
    }

    @Override
    public void lowerRoomTo(double remaining, long nowNanos, long nowMillis) {
        refillAndTakeBack(nowNanos);
        // the provider's level, less the transit allowance this mirror keeps back
        double mirrored = remaining - (limit().burst() - ceiling);
        if (level > mirrored) {
            double lowered = Math.max(mirrored, debtFloor());
            figureCorrections += level - lowered;
            level = lowered;
        }
    }

    @Override
    public void raiseRoomTo(long remaining, long nowNanos, long nowMillis) {
        refillAndTakeBack(nowNanos);
        // the provider's level, less the transit allowance, less what the lane still holds of it
        double mirrored = Math.min(cap(), remaining - (limit().burst() - ceiling) - lentOut);
        if (level < mirrored) {
            figureCorrections -= mirrored - level;
            level = mirrored;
            // the figure counted what the calls reserved before now really used: a refund of
            // theirs would give it back twice, so none gets anything (as if the level had been full)
            headroom.observe(++moment, 0);
        }
    }

    @Override
    public void capacityChanged(long nowNanos, long nowMillis) {
        refillAndTakeBack(nowNanos);
        double oldRate = ratePerNano;
        double oldCeiling = ceiling;
        ratePerNano = (double) limit().capacity() / limit().windowNanos();
        ceiling = limit().refillCeiling();
        if (ceiling < oldCeiling) {
            headroom.ceilingLowered(oldCeiling - ceiling);
        }
        if (level < 0) {
            // a debt is a time to wait: it stays the same time at the new rate
            level = Math.max(level * (ratePerNano / oldRate), debtFloor());
        }
        // what the bucket holds is clamped to the new ceiling, never refilled to it: an operator
        // lowering a capacity or a burst under load must not hand out a fresh bucket at once
        level = Math.min(level, limit().burst());
    }

    // ------------------------------------------------------------------ the lock-free lane

    @Override
    public LaneLender laneLender() {
        return holdsReserves() ? null : this;
    }

    /** The room lent, made by the first loan; null when the bucket lends no more (it was evicted). Lock held. */
    @Override
    public LaneCredit credit() {
        if (isEvicted()) {
            return null;
        }
        LaneCredit credit = lent;
        if (credit == null) {
            credit = new LaneCredit();
            lent = credit;
        }
        return credit;
    }

    @Override
    void onEvicted() {
        LaneCredit credit = lent;
        if (credit != null) {
            credit.takeAll(); // the lane must not admit on a bucket nobody counts any more
        }
    }

    @Override
    public long roomOnFastPath(int tenant, long nowNanos, long nowMillis) {
        if (holdsReserves()) {
            return roomFor(tenant, nowNanos, nowMillis);
        }
        refill(nowNanos);
        return (long) Math.floor(visibleLevel() + 1e-9);
    }

    /** Tops up what the calling thread's stripe holds of lent room. Lock held. */
    @Override
    public void lend(int stripe, long nowNanos) {
        LaneCredit credit = credit();
        if (credit == null) {
            return;
        }
        refill(nowNanos);
        long stripeMost = Math.max(1, limit().burst() / LEND_FRACTION);
        long loan = Math.min(stripeMost - credit.held(stripe), (long) Math.floor(level + 1e-9));
        if (loan > 0) {
            level -= loan;
            lentOut += loan;
            countAdmitted(loan, nowNanos); // the lane's calls are counted as the room they use is lent
            // the time the level was worked out for, and the moment a refund of what the lane
            // admits from it asks about: its take came later
            credit.lend(stripe, loan, lastRefillNanos, ++moment);
        }
    }

    /** Lane admissions that took {@code amount} in all were registered (see {@link LaneLender#registered}). Lock held. */
    @Override
    public void registered(long amount, long nowNanos) {
        // Counted per admission registered, not as lentOut less what the stripes hold: a lane
        // admission that could not take every bucket puts back what it took, after such a count.
        refill(nowNanos); // at the cap that held while the amount counted as lent
        lentOut -= amount;
        addReserved(amount);
    }

    @Override
    long takenThroughLaneUnregistered() {
        LaneCredit credit = lent;
        return credit == null ? 0 : lentOut - credit.unused();
    }
}
