package dev.sluice.core.quota;

/**
 * A token bucket with continuous refill: capacity per window, refilled smoothly, so a per-minute
 * limit is also smooth within the minute (as providers enforce it). The burst is the capacity.
 * The level is kept as a double; integer reservations and refunds restore it exactly.
 */
final class TokenBucket extends Bucket {

    private double level;
    private long lastRefillNanos;
    /** Capacity over window, kept so a refill costs one multiplication. */
    private double ratePerNano;

    TokenBucket(Limit limit, String scopeValue, long nowNanos) {
        super(limit, scopeValue);
        this.level = limit.burst();
        this.lastRefillNanos = nowNanos;
        this.ratePerNano = (double) limit.capacity() / limit.windowNanos();
    }

    private double ratePerNano() {
        return ratePerNano;
    }

    private void refill(long nowNanos) {
        long elapsed = nowNanos - lastRefillNanos;
        if (elapsed > 0) {
            long full = limit().burst();
            double added = elapsed * ratePerNano();
            if (level < full) {
                level = Math.min(full, level + added);
            }
            refillReserves(added);
            lastRefillNanos = nowNanos;
        }
    }

    @Override
    public long room(long nowNanos, long nowMillis) {
        refill(nowNanos);
        // a hair of tolerance so that floating refill never hides a whole token
        return (long) Math.floor(level + 1e-9);
    }

    @Override
    double exactRoom(long nowNanos, long nowMillis) {
        refill(nowNanos);
        return level;
    }

    @Override
    public long take(long amount, long nowNanos, long nowMillis) {
        refill(nowNanos);
        level -= amount;
        return 0;
    }

    @Override
    public void giveBack(long amount, long windowId, long nowNanos, long nowMillis) {
        refill(nowNanos);
        level = Math.min(limit().burst(), level + amount);
    }

    @Override
    public void takeMore(long amount, long nowNanos, long nowMillis) {
        refill(nowNanos);
        level -= amount;
    }

    @Override
    public long nanosUntilRoom(long amount, long nowNanos, long nowMillis) {
        if (amount > limit().burst()) {
            return NEVER;
        }
        refill(nowNanos);
        double missing = amount - level - 1e-9;
        if (missing <= 0) {
            return 0;
        }
        return (long) Math.ceil(missing / ratePerNano());
    }

    @Override
    long nanosUntilRoomBesideReserves(int tenant, long amount, long nowNanos, long nowMillis) {
        // Room and the other reserves both grow with time; reserves stop at their caps. Walk the
        // pieces where the set of still-filling reserves is constant.
        double rate = ratePerNano();
        double capacity = limit().burst();
        double level = this.level;
        double[] held = new double[reserves.length];
        for (int i = 0; i < held.length; i++) {
            held[i] = i == tenant ? 0 : Math.min(reserves[i], reserveCap(i));
        }
        double elapsed = 0;
        for (int step = 0; step <= held.length + 1; step++) {
            double heldTotal = 0;
            double fillingShare = 0;
            double nextCapIn = Double.MAX_VALUE;
            for (int i = 0; i < held.length; i++) {
                if (i == tenant) {
                    continue;
                }
                heldTotal += held[i];
                double cap = reserveCap(i);
                if (held[i] < cap && reserveShare(i) > 0) {
                    fillingShare += reserveShare(i);
                    nextCapIn = Math.min(nextCapIn, (cap - held[i]) / (reserveShare(i) * rate));
                }
            }
            double deficit = amount + heldTotal - level;
            if (deficit <= 1e-9) {
                return (long) Math.ceil(elapsed);
            }
            double closing = level < capacity ? rate * (1 - fillingShare) : 0;
            if (closing <= 0 && nextCapIn == Double.MAX_VALUE) {
                return NEVER;
            }
            double dt = closing > 0 ? Math.min(deficit / closing, nextCapIn) : nextCapIn;
            elapsed += dt;
            level = Math.min(capacity, level + rate * dt);
            for (int i = 0; i < held.length; i++) {
                if (i != tenant) {
                    held[i] = Math.min(reserveCap(i), held[i] + reserveShare(i) * rate * dt);
                }
            }
        }
        return (long) Math.ceil(elapsed);
    }

    @Override
    public void lowerRoomTo(long remaining, long nowNanos, long nowMillis) {
        refill(nowNanos);
        if (level > remaining) {
            level = remaining;
        }
    }

    @Override
    public void capacityChanged(long nowNanos, long nowMillis) {
        refill(nowNanos);
        ratePerNano = (double) limit().capacity() / limit().windowNanos();
        level = Math.min(level, limit().burst());
    }

    @Override
    public long nanosUntilAtRest(long nowNanos, long nowMillis) {
        if (reserved() > 0) {
            return NEVER;
        }
        return nanosUntilRoom(limit().burst(), nowNanos, nowMillis);
    }
}
