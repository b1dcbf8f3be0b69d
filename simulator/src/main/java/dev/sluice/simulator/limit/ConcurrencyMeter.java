package dev.sluice.simulator.limit;

import java.time.Duration;

/** Requests in flight. Nothing refills with time: a slot comes back when a response has ended. */
final class ConcurrencyMeter implements Meter {
    private final long capacity;
    private long inFlight;

    ConcurrencyMeter(long capacity) {
        this.capacity = capacity;
    }

    @Override
    public boolean hasRoom(long amount, long nowNanos) {
        return inFlight + amount <= capacity;
    }

    @Override
    public void take(long amount, long nowNanos) {
        inFlight += amount;
    }

    @Override
    public void takeAtMostAvailable(long amount, long nowNanos) {
        // A refused request never held a slot.
    }

    @Override
    public void giveBack(long amount, long nowNanos) {
        inFlight = Math.max(0, inFlight - amount);
    }

    @Override
    public long remaining(long nowNanos) {
        return capacity - inFlight;
    }

    @Override
    public Duration untilRoomFor(long amount, long nowNanos) {
        return hasRoom(amount, nowNanos) ? Duration.ZERO : null;
    }

    @Override
    public Duration untilFull(long nowNanos) {
        return Duration.ZERO;
    }

    @Override
    public long ceiling() {
        return capacity;
    }
}
