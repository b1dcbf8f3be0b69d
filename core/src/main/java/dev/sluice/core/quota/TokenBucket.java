package dev.sluice.core.quota;

/**
 * A token bucket with continuous refill: capacity per window, refilled smoothly, so a per-minute
 * limit is also smooth within the minute (as providers enforce it). The burst is the capacity.
 * The level is kept as a double; integer reservations and refunds restore it exactly.
 */
final class TokenBucket extends Bucket {

    private double level;
    private long lastRefillNanos;

    TokenBucket(Limit limit, String scopeValue, long nowNanos) {
        super(limit, scopeValue);
        this.level = limit.capacity();
        this.lastRefillNanos = nowNanos;
    }

    private double ratePerNano() {
        return (double) limit().capacity() / limit().windowNanos();
    }

    private void refill(long nowNanos) {
        long elapsed = nowNanos - lastRefillNanos;
        if (elapsed > 0) {
            long capacity = limit().capacity();
            if (level < capacity) {
                level = Math.min(capacity, level + elapsed * ratePerNano());
            }
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
    public long take(long amount, long nowNanos, long nowMillis) {
        refill(nowNanos);
        level -= amount;
        return 0;
    }

    @Override
    public void giveBack(long amount, long windowId, long nowNanos, long nowMillis) {
        refill(nowNanos);
        level = Math.min(limit().capacity(), level + amount);
    }

    @Override
    public void takeMore(long amount, long nowNanos, long nowMillis) {
        refill(nowNanos);
        level -= amount;
    }

    @Override
    public long nanosUntilRoom(long amount, long nowNanos, long nowMillis) {
        if (amount > limit().capacity()) {
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
    public void lowerRoomTo(long remaining, long nowNanos, long nowMillis) {
        refill(nowNanos);
        if (level > remaining) {
            level = remaining;
        }
    }

    @Override
    public void capacityChanged(long nowNanos, long nowMillis) {
        refill(nowNanos);
        level = Math.min(level, limit().capacity());
    }

    @Override
    public long nanosUntilAtRest(long nowNanos, long nowMillis) {
        if (reserved() > 0) {
            return NEVER;
        }
        return nanosUntilRoom(limit().capacity(), nowNanos, nowMillis);
    }
}
