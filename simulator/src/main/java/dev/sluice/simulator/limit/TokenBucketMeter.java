package dev.sluice.simulator.limit;

import java.time.Duration;

/**
 * Continuous refill at capacity per window up to a burst size. Fractional levels are kept so a rate
 * such as 60 per minute refills one unit per second exactly; remaining counts are whole units.
 */
final class TokenBucketMeter implements Meter {
    private final double size;
    private final double perNano;
    private double level;
    private long lastNanos;

    TokenBucketMeter(long capacity, Duration window, long burst, long nowNanos) {
        this.size = burst;
        this.perNano = (double) capacity / window.toNanos();
        this.level = burst;
        this.lastNanos = nowNanos;
    }

    private void refill(long nowNanos) {
        if (nowNanos > lastNanos) {
            level = Math.min(size, level + (nowNanos - lastNanos) * perNano);
            lastNanos = nowNanos;
        }
    }

    @Override
    public boolean hasRoom(long amount, long nowNanos) {
        refill(nowNanos);
        // A hair of tolerance: refill arithmetic in doubles must not refuse an exact fit.
        return level + 1e-9 >= amount;
    }

    @Override
    public void take(long amount, long nowNanos) {
        refill(nowNanos);
        level -= amount;
    }

    @Override
    public void takeAtMostAvailable(long amount, long nowNanos) {
        refill(nowNanos);
        level = Math.max(0, level - amount);
    }

    @Override
    public void giveBack(long amount, long nowNanos) {
        refill(nowNanos);
        level = Math.min(size, level + amount);
    }

    @Override
    public long remaining(long nowNanos) {
        refill(nowNanos);
        return (long) Math.floor(Math.max(0, level) + 1e-9);
    }

    @Override
    public Duration untilRoomFor(long amount, long nowNanos) {
        refill(nowNanos);
        double missing = amount - level;
        return missing <= 0 ? Duration.ZERO : Duration.ofNanos((long) Math.ceil(missing / perNano));
    }

    @Override
    public Duration untilFull(long nowNanos) {
        refill(nowNanos);
        double missing = size - level;
        return missing <= 0 ? Duration.ZERO : Duration.ofNanos((long) Math.ceil(missing / perNano));
    }

    @Override
    public long ceiling() {
        return (long) size;
    }
}
