package dev.sluice.core.quota;

/**
 * Calls in flight at once. Room only comes back when a call releases its slot (its body or stream
 * ended, was closed, or its lease expired), never with time.
 */
final class ConcurrencyBucket extends Bucket {

    private long inFlight;

    ConcurrencyBucket(Limit limit, String scopeValue) {
        super(limit, scopeValue);
    }

    @Override
    public long room(long nowNanos, long nowMillis) {
        return limit().capacity() - inFlight;
    }

    @Override
    public long take(long amount, long nowNanos, long nowMillis) {
        inFlight += amount;
        return 0;
    }

    @Override
    public void giveBack(long amount, long windowId, long nowNanos, long nowMillis) {
        inFlight = Math.max(0, inFlight - amount);
    }

    @Override
    public void takeMore(long amount, long nowNanos, long nowMillis) {
        inFlight += amount;
    }

    @Override
    public long nanosUntilRoom(long amount, long nowNanos, long nowMillis) {
        if (amount > limit().capacity()) {
            return NEVER;
        }
        return amount <= limit().capacity() - inFlight ? 0 : ON_RELEASE;
    }

    @Override
    long nanosUntilRoomBesideReserves(int tenant, long amount, long nowNanos, long nowMillis) {
        return ON_RELEASE;
    }

    @Override
    public void lowerRoomTo(long remaining, long nowNanos, long nowMillis) {
        // no provider reports remaining concurrency; nothing to correct
    }

    @Override
    public void capacityChanged(long nowNanos, long nowMillis) {
        // room is derived from the capacity on every read
    }

    long inFlight() {
        return inFlight;
    }
}
