package dev.sluice.core.quota;

/**
 * A counter that resets at window boundaries: fixed windows aligned on the epoch, or a daily reset
 * at a zone-aware time. A refund only applies to the window it was taken in: once the window has
 * ended, its counts are gone anyway.
 *
 * <p>A bucket that mirrors a provider's window admits nothing in the last moments of a window
 * ({@link #closingMillis}): a call admitted there reaches the provider after the boundary and is
 * counted in the next window, where this bucket would hand out the full capacity again and the
 * provider would refuse the one call too many. The closing calls wait for the next window instead.
 */
final class WindowBucket extends Bucket {

    /** The longest closing stretch: more than a call's transit to a provider, a small part of a minute. */
    static final long MAX_CLOSING_MILLIS = 500;

    private final WindowSchedule schedule;
    private long currentWindowStart;
    private long used;

    WindowBucket(Limit limit, String scopeValue, WindowSchedule schedule, long nowMillis) {
        super(limit, scopeValue);
        this.schedule = schedule;
        this.currentWindowStart = schedule.windowStart(nowMillis);
    }

    @Override
    public boolean isWindowed() {
        return true;
    }

    private void roll(long nowMillis) {
        long start = schedule.windowStart(nowMillis);
        if (start != currentWindowStart) {
            currentWindowStart = start;
            used = 0;
            fillReserves();
        }
    }

    @Override
    long currentWindowId(long nowMillis) {
        roll(nowMillis);
        return currentWindowStart;
    }

    @Override
    public long room(long nowNanos, long nowMillis) {
        roll(nowMillis);
        long room = limit().capacity() - used;
        return closing(nowMillis) ? Math.min(0, room) : room;
    }

    /**
     * How long before its end a mirrored window stops admitting: a tenth of the window, at most
     * {@link #MAX_CLOSING_MILLIS}; 0 for Sluice's own windows, which nothing else counts.
     */
    long closingMillis(long nowMillis) {
        return closingMillis(limit(), schedule, nowMillis);
    }

    private boolean closing(long nowMillis) {
        return closing(limit(), schedule, nowMillis);
    }

    static long closingMillis(Limit limit, WindowSchedule schedule, long nowMillis) {
        if (!limit.mirrorsProvider()) {
            return 0;
        }
        long length = schedule.nextWindowStart(nowMillis) - schedule.windowStart(nowMillis);
        return Math.min(MAX_CLOSING_MILLIS, length / 10);
    }

    /** Whether {@code limit}'s window, as {@code schedule} cuts it, is in its closing stretch. */
    static boolean closing(Limit limit, WindowSchedule schedule, long nowMillis) {
        long closing = closingMillis(limit, schedule, nowMillis);
        return closing > 0 && schedule.nextWindowStart(nowMillis) - nowMillis <= closing;
    }

    @Override
    public long take(long amount, long nowNanos, long nowMillis) {
        roll(nowMillis);
        used += amount;
        return currentWindowStart;
    }

    @Override
    public void giveBack(long amount, long windowId, long nowNanos, long nowMillis) {
        roll(nowMillis);
        if (windowId == currentWindowStart) {
            used = Math.max(0, used - amount);
        }
    }

    @Override
    public void takeMore(long amount, long nowNanos, long nowMillis) {
        roll(nowMillis);
        used += amount;
    }

    @Override
    public long nanosUntilRoom(long amount, long nowNanos, long nowMillis) {
        if (amount > limit().capacity()) {
            return NEVER;
        }
        roll(nowMillis);
        if (amount <= limit().capacity() - used && !closing(nowMillis)) {
            return 0;
        }
        return Math.max(1, schedule.nextWindowStart(nowMillis) - nowMillis) * 1_000_000L;
    }

    @Override
    long nanosUntilRoomBesideReserves(int tenant, long amount, long nowNanos, long nowMillis) {
        // every reserve is full again when the next window starts, and the call fits beside them
        roll(nowMillis);
        return Math.max(1, schedule.nextWindowStart(nowMillis) - nowMillis) * 1_000_000L;
    }

    @Override
    public void lowerRoomTo(long remaining, long nowNanos, long nowMillis) {
        roll(nowMillis);
        used = Math.max(used, limit().capacity() - remaining);
    }

    @Override
    public void capacityChanged(long nowNanos, long nowMillis) {
        roll(nowMillis);
    }

    /** Start of the window being counted (epoch ms), for display. */
    long windowStart() {
        return currentWindowStart;
    }
}
