package dev.sluice.simulator.limit;

import java.time.Duration;

/**
 * A counter per window aligned to epoch multiples of the window (a one-minute window starts on the
 * minute), so the end of the current window is a known instant a server can name.
 */
final class FixedWindowMeter implements Meter {
    private final long capacity;
    private final long windowNanos;
    private long windowIndex;
    private long used;

    FixedWindowMeter(long capacity, Duration window, long nowNanos) {
        this.capacity = capacity;
        this.windowNanos = window.toNanos();
        this.windowIndex = Math.floorDiv(nowNanos, windowNanos);
    }

    private void roll(long nowNanos) {
        long index = Math.floorDiv(nowNanos, windowNanos);
        if (index != windowIndex) {
            windowIndex = index;
            used = 0;
        }
    }

    @Override
    public boolean hasRoom(long amount, long nowNanos) {
        roll(nowNanos);
        return used + amount <= capacity;
    }

    @Override
    public void take(long amount, long nowNanos) {
        roll(nowNanos);
        used += amount;
    }

    @Override
    public void takeAtMostAvailable(long amount, long nowNanos) {
        roll(nowNanos);
        used = Math.min(capacity, used + amount);
    }

    @Override
    public void giveBack(long amount, long nowNanos) {
        roll(nowNanos);
        used = Math.max(0, used - amount);
    }

    @Override
    public long remaining(long nowNanos) {
        roll(nowNanos);
        return Math.max(0, capacity - used);
    }

    @Override
    public Duration untilRoomFor(long amount, long nowNanos) {
        return hasRoom(amount, nowNanos) ? Duration.ZERO : untilFull(nowNanos);
    }

    @Override
    public Duration untilFull(long nowNanos) {
        roll(nowNanos);
        return Duration.ofNanos((windowIndex + 1) * windowNanos - nowNanos);
    }

    @Override
    public long ceiling() {
        return capacity;
    }
}
