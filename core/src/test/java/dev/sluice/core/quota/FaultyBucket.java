package dev.sluice.core.quota;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The bucket it wraps, except that giving room back throws while {@code faults} is positive (each
 * throw counts one down): for tests of what a settlement that fails to apply must not take down.
 */
public final class FaultyBucket extends Bucket {

    private final Bucket inner;
    private final AtomicInteger faults;

    public FaultyBucket(Bucket inner, AtomicInteger faults) {
        super(inner.limit(), inner.scopeValue());
        this.inner = inner;
        this.faults = faults;
    }

    @Override
    public void giveBack(long amount, long windowId, long nowNanos, long nowMillis) {
        if (faults.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
            throw new IllegalStateException("injected: giving back " + amount);
        }
        inner.giveBack(amount, windowId, nowNanos, nowMillis);
    }

    @Override
    public long room(long nowNanos, long nowMillis) {
        return inner.room(nowNanos, nowMillis);
    }

    @Override
    public long take(long amount, long nowNanos, long nowMillis) {
        return inner.take(amount, nowNanos, nowMillis);
    }

    @Override
    public void takeMore(long amount, long nowNanos, long nowMillis) {
        inner.takeMore(amount, nowNanos, nowMillis);
    }

    @Override
    public long nanosUntilRoom(long amount, long nowNanos, long nowMillis) {
        return inner.nanosUntilRoom(amount, nowNanos, nowMillis);
    }

    @Override
    long nanosUntilRoomBesideReserves(int tenant, long amount, long nowNanos, long nowMillis) {
        return inner.nanosUntilRoomBesideReserves(tenant, amount, nowNanos, nowMillis);
    }

    @Override
    public void lowerRoomTo(long remaining, long nowNanos, long nowMillis) {
        inner.lowerRoomTo(remaining, nowNanos, nowMillis);
    }

    @Override
    public void capacityChanged(long nowNanos, long nowMillis) {
        inner.capacityChanged(nowNanos, nowMillis);
    }

    /** As the inner bucket: a token bucket's refund needs the moment its take returned. */
    @Override
    public boolean tracksTakes() {
        return inner.tracksTakes();
    }
}
